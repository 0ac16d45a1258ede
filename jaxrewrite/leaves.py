"""Run-time support for per-leaf statics: the only jaxrewrite code that runs on every call.

A parameter annotated with a TypedDict or NamedTuple whose fields are marked Static (or, for
grad, NoDiff) is split per call. One helper per transform family (the table row's ``per_leaf``
policy names it):

- ``static_leaves`` (jit, pjit): the static entries travel as one static keyword (hashed into
  JAX's cache key), the rest as an ordinary dynamic pytree.
- ``grad_leaves`` (grad, value_and_grad): the held entries (Static and NoDiff) travel as a
  keyword, which JAX never differentiates; the differentiated argument keeps its structure
  with None at the held entries, so the gradient has that structure too (equinox's
  ``filter_grad`` convention).
- ``pmap_leaves``: the static entries travel as one extra leading positional argument marked
  ``static_broadcasted_argnums`` (pmap hashes only positional statics).
- ``vmap_leaves``: the static entries are closed over per call (vmap maps every keyword and
  keeps no cache to hash into); the argument keeps its structure with None at them, so any
  ``in_axes`` written for it still fits.

The split copies the container once (a C-level dict copy or ``_replace``) and touches only the
held keys. The transforms' own options pass through untouched except where a helper must
shift or extend them (documented per helper).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

#: The extra static keyword carrying the split-out entries; never a user parameter name.
STATIC_LEAVES = "_jaxrewrite_static_leaves"

#: One argument's split-out entries, as (key, value) pairs of the keys it has.
Pairs = tuple[tuple[str, Any], ...]

#: The jitted function's methods besides calling that take the call's arguments (so get
#: the same split): ahead-of-time lowering, tracing and shape evaluation.
AOT_METHODS = ("lower", "trace", "eval_shape")


class _Leaf:
    """One per-leaf parameter: where it is passed, what container it is, its held keys."""

    __slots__ = ("name", "position", "is_dict", "keys", "nulls")

    def __init__(self, name: str, position: int | None, kind: str, keys: tuple[str, ...]) -> None:
        self.name = name
        self.position = position
        self.is_dict = kind == "dict"
        self.keys = keys
        self.nulls = dict.fromkeys(keys)

    def split(self, value: Any) -> tuple[Any, Pairs]:
        """(the argument without its held entries, those entries): for jit, whose cache key
        the pairs join. Written for the per-call hot path: no comprehension frames, and the
        exact-dict check first (an ABC isinstance check costs microseconds when caches are
        cold); measured faster than C-level ``map``/``zip`` forms for a few keys."""
        if self.is_dict:
            if type(value) is not dict and not isinstance(value, Mapping):
                self._refuse(value)
            dynamic = dict(value)
            pairs = []
            for key in self.keys:
                if key in dynamic:
                    pairs.append((key, dynamic.pop(key)))
            return dynamic, tuple(pairs)
        if not hasattr(value, "_replace"):
            self._refuse(value)
        pairs = []
        for key in self.keys:
            pairs.append((key, getattr(value, key)))
        return value._replace(**self.nulls), tuple(pairs)

    def _refuse(self, value: Any) -> NoReturn:
        what = "a dict (it has per-leaf entries)" if self.is_dict else "a NamedTuple (it has per-leaf fields)"
        raise TypeError(f"argument {self.name!r} must be {what}, got {type(value).__name__}")

    def hold(self, value: Any) -> tuple[Any, Pairs]:
        """Like ``split``, but the held entries become None instead of disappearing: the
        argument keeps its tree structure (grad's gradient, vmap's and pmap's ``in_axes``)."""
        if self.is_dict:
            if type(value) is not dict and not isinstance(value, Mapping):
                self._refuse(value)
            dynamic = dict(value)
            pairs = []
            for key in self.keys:
                if key in dynamic:
                    pairs.append((key, dynamic[key]))
                    dynamic[key] = None
            return dynamic, tuple(pairs)
        return self.split(value)  # a NamedTuple split already keeps its fields, as None

    def merge(self, dynamic: Any, pairs: Pairs) -> Any:
        """The argument whole again (trace time only): ``dynamic`` with the held entries back."""
        if self.is_dict:
            return {**dynamic, **dict(pairs)}
        return dynamic._replace(**dict(pairs))


LeafSpecs = tuple[tuple[str, int | None, str, tuple[str, ...]], ...]


def static_leaves(
    transform: Callable[..., Any],
    fun: Callable[..., Any],
    leaves: LeafSpecs,
    *args: Any,
    **keywords: Any,
) -> Callable[..., Any]:
    """``transform(fun, **keywords)`` where the listed arguments carry static entries.

    ``leaves`` holds (parameter name, position or None, "dict" or "namedtuple", static keys).
    The transform's options must be keywords: this helper extends ``static_argnames``.
    """
    if args:
        raise TypeError(
            f"per-leaf statics: pass {getattr(transform, '__name__', 'jit')}'s options by keyword, "
            "not by position (jaxrewrite extends static_argnames)"
        )
    specs = tuple(_Leaf(*leaf) for leaf in leaves)

    def inner(*args: Any, **kwargs: Any) -> Any:
        split = kwargs.pop(STATIC_LEAVES)
        for spec, pairs in zip(specs, split):
            if pairs is None:
                continue
            if spec.position is not None and len(args) > spec.position:
                args = (
                    *args[: spec.position],
                    spec.merge(args[spec.position], pairs),
                    *args[spec.position + 1 :],
                )
            else:
                kwargs[spec.name] = spec.merge(kwargs[spec.name], pairs)
        return fun(*args, **kwargs)

    # Name it like the user's function (for JAX's error messages and profiles) but without
    # __wrapped__: JAX must see inner's (*args, **kwargs) signature, not fun's.
    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(inner, attr, getattr(fun, attr, getattr(inner, attr)))
    names = tuple(keywords.pop("static_argnames", ()) or ()) + (STATIC_LEAVES,)
    jitted = transform(inner, static_argnames=names, **keywords)
    outer = _splitting(specs, jitted)
    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(outer, attr, getattr(fun, attr, getattr(outer, attr)))
    outer.__wrapped__ = fun  # type: ignore[attr-defined]
    outer.jitted = jitted  # type: ignore[attr-defined]
    # What jax.jit's wrapper offers besides calling (ahead-of-time lowering, tracing,
    # shapes), behind the same split; only what this transform's result has, so an
    # attribute an older JAX lacks stays an AttributeError here too.
    for method in AOT_METHODS:
        target = getattr(jitted, method, None)
        if target is not None:
            aot = _splitting(specs, target)
            aot.__name__ = method
            aot.__qualname__ = f"{outer.__qualname__}.{method}"
            aot.__doc__ = f"``jitted.{method}`` with the arguments split as a call splits them."
            setattr(outer, method, aot)
    clear_cache = getattr(jitted, "clear_cache", None)
    if clear_cache is not None:
        outer.clear_cache = clear_cache  # type: ignore[attr-defined]
    return outer


def _splitting(specs: tuple[_Leaf, ...], target: Callable[..., Any]) -> Callable[..., Any]:
    """A function that splits its arguments per ``specs`` and passes them on to ``target``.

    One factory makes both the call path (target: the jitted function) and the AOT methods
    (target: ``jitted.lower`` and the like), so they split identically, and the call path
    pays no extra frame for the sharing: the split is inlined in each closure.
    """

    if len(specs) == 1:  # the common case, without the loop
        return _splitting_one(specs[0], target)

    def outer(*args: Any, **kwargs: Any) -> Any:
        split = []
        for spec in specs:
            if spec.position is not None and len(args) > spec.position:
                dynamic, pairs = spec.split(args[spec.position])
                args = args[: spec.position] + (dynamic,) + args[spec.position + 1 :]
            elif spec.name in kwargs:
                kwargs[spec.name], pairs = spec.split(kwargs[spec.name])
            else:
                pairs = None  # the default is used inside the traced function, untraced
            split.append(pairs)
        kwargs[STATIC_LEAVES] = tuple(split)
        return target(*args, **kwargs)

    return outer


def _splitting_one(spec: _Leaf, target: Callable[..., Any]) -> Callable[..., Any]:
    """``_splitting`` for one per-leaf parameter, without the loop; a plain dict is split
    inline (no method call, no attribute lookups: measured ~0.2 us of ~1 us per call)."""
    position, name, split_one, keys = spec.position, spec.name, spec.split, spec.keys
    exact = dict if spec.is_dict else None  # the inline split is for a dict parameter's dicts

    def outer(*args: Any, **kwargs: Any) -> Any:
        if position is not None and len(args) > position:
            value = args[position]
            if type(value) is exact:
                dynamic = value.copy()
                found = []
                for key in keys:
                    if key in dynamic:
                        found.append((key, dynamic.pop(key)))
                pairs = tuple(found)
            else:
                dynamic, pairs = split_one(value)
            args = (*args[:position], dynamic, *args[position + 1 :])
        elif name in kwargs:
            kwargs[name], pairs = split_one(kwargs[name])
        else:
            pairs = None  # the default is used inside the traced function, untraced
        kwargs[STATIC_LEAVES] = (pairs,)
        return target(*args, **kwargs)

    return outer


def _named_like(wrapper: Callable[..., Any], fun: Callable[..., Any]) -> None:
    """Name a wrapper like the user's function (JAX's error messages, profiles, pmap's
    compilation names) without ``__wrapped__``: JAX must see the wrapper's own signature."""
    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(wrapper, attr, getattr(fun, attr, getattr(wrapper, attr)))


def _unpartial(
    transform: Callable[..., Any], args: tuple[Any, ...], keywords: dict[str, Any]
) -> tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]:
    """``partial(jax.pmap, in_axes=...)`` as the transform and its options, so a helper that
    must shift an option sees the one the user wrote."""
    while isinstance(transform, functools.partial):
        args = (*transform.args, *args)
        keywords = {**transform.keywords, **keywords}
        transform = transform.func
    return transform, args, keywords


def _merging(specs: tuple[_Leaf, ...], fun: Callable[..., Any], held: Any, args: Any, kwargs: Any) -> Any:
    """Call ``fun`` with every held entry put back into its argument (trace time only)."""
    for spec, pairs in zip(specs, held):
        if pairs is None:
            continue
        if spec.position is not None and len(args) > spec.position:
            args = (*args[: spec.position], spec.merge(args[spec.position], pairs), *args[spec.position + 1 :])
        else:
            kwargs[spec.name] = spec.merge(kwargs[spec.name], pairs)
    return fun(*args, **kwargs)


def _holding(
    specs: tuple[_Leaf, ...], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], tuple[Pairs | None, ...]]:
    """Replace each listed argument by its structure-keeping dynamic part; return what was held."""
    held = []
    for spec in specs:
        if spec.position is not None and len(args) > spec.position:
            dynamic, pairs = spec.hold(args[spec.position])
            args = args[: spec.position] + (dynamic,) + args[spec.position + 1 :]
        elif spec.name in kwargs:
            kwargs[spec.name], pairs = spec.hold(kwargs[spec.name])
        else:
            pairs = None  # the default is used inside, untouched
        held.append(pairs)
    return args, tuple(held)


def at_call(helper: str, transform: Callable[..., Any], leaves: LeafSpecs) -> Callable[..., Any]:
    """A call site's transform with per-leaf entries: ``at_call('static_leaves', jax.jit,
    leaves)(fun, ...)`` is ``static_leaves(jax.jit, fun, leaves, ...)``, so the call's own
    arguments stay as written."""
    policy = _HELPERS[helper]

    def transform_with_leaves(fun: Callable[..., Any], *args: Any, **keywords: Any) -> Any:
        return policy(transform, fun, leaves, *args, **keywords)

    return transform_with_leaves


def grad_leaves(
    transform: Callable[..., Any],
    fun: Callable[..., Any],
    leaves: LeafSpecs,
    *args: Any,
    **keywords: Any,
) -> Callable[..., Any]:
    """``transform(fun, *args, **keywords)`` (grad, value_and_grad) with the listed entries held
    out of differentiation.

    The held entries (``leaves``' keys: Static and NoDiff fields) are passed as one keyword,
    which JAX's grad never differentiates and never hashes; the argument itself keeps its
    structure with None there, so the gradient is the argument's structure with None at
    every held entry, for any ``argnums`` and ``has_aux``.
    """
    specs = tuple(_Leaf(*leaf) for leaf in leaves)

    def inner(*a: Any, **kw: Any) -> Any:
        return _merging(specs, fun, kw.pop(STATIC_LEAVES), a, kw)

    _named_like(inner, fun)
    transformed = transform(inner, *args, **keywords)

    def outer(*a: Any, **kw: Any) -> Any:
        a, held = _holding(specs, a, kw)
        kw[STATIC_LEAVES] = held
        return transformed(*a, **kw)

    _named_like(outer, fun)
    outer.__wrapped__ = fun  # type: ignore[attr-defined]
    return outer


def _shifted(nums: Any) -> tuple[int, ...]:
    """Argument positions after one new leading argument (negative ones count from the end)."""
    items = (nums,) if isinstance(nums, int) else tuple(nums or ())
    return tuple(n + 1 if n >= 0 else n for n in items)


def pmap_leaves(
    transform: Callable[..., Any],
    fun: Callable[..., Any],
    leaves: LeafSpecs,
    *args: Any,
    **keywords: Any,
) -> Callable[..., Any]:
    """``transform(fun, *args, **keywords)`` (pmap) with the listed static entries broadcast.

    pmap hashes only positional statics, so the held entries travel as a new leading
    argument: ``static_broadcasted_argnums`` and ``donate_argnums`` shift by one and gain 0,
    a tuple ``in_axes`` gains a leading None. The argument keeps its structure with None at
    the static entries, so its own ``in_axes`` (an int or a per-key structure) still fits.
    """
    transform, args, keywords = _unpartial(transform, args, keywords)
    specs = tuple(_Leaf(*leaf) for leaf in leaves)
    keywords["static_broadcasted_argnums"] = (0, *_shifted(keywords.get("static_broadcasted_argnums")))
    if "donate_argnums" in keywords:
        keywords["donate_argnums"] = _shifted(keywords["donate_argnums"])
    in_axes = keywords.get("in_axes", 0)
    if isinstance(in_axes, (tuple, list)):
        keywords["in_axes"] = (None, *in_axes)

    def inner(held: Any, *a: Any, **kw: Any) -> Any:
        return _merging(specs, fun, held, a, kw)

    _named_like(inner, fun)
    mapped = transform(inner, *args, **keywords)

    def outer(*a: Any, **kw: Any) -> Any:
        a, held = _holding(specs, a, kw)
        return mapped(held, *a, **kw)

    _named_like(outer, fun)
    outer.__wrapped__ = fun  # type: ignore[attr-defined]
    outer.mapped = mapped  # type: ignore[attr-defined]
    return outer


def vmap_leaves(
    transform: Callable[..., Any],
    fun: Callable[..., Any],
    leaves: LeafSpecs,
    *args: Any,
    **keywords: Any,
) -> Callable[..., Any]:
    """``transform(fun, *args, **keywords)`` (vmap) with the listed static entries unmapped.

    vmap maps every keyword argument and keeps no cache, so the static entries are closed
    over: each call maps a fresh closure (vmap traces on every call anyway). The argument
    keeps its structure with None at the static entries, which no ``in_axes`` maps.
    """
    specs = tuple(_Leaf(*leaf) for leaf in leaves)

    def outer(*a: Any, **kw: Any) -> Any:
        a, held = _holding(specs, a, kw)

        def inner(*ia: Any, **ikw: Any) -> Any:
            return _merging(specs, fun, held, ia, ikw)

        _named_like(inner, fun)
        return transform(inner, *args, **keywords)(*a, **kw)

    _named_like(outer, fun)
    outer.__wrapped__ = fun  # type: ignore[attr-defined]
    return outer


#: The per-leaf policies by the name a table row's ``per_leaf`` gives.
_HELPERS: dict[str, Callable[..., Callable[..., Any]]] = {
    "static_leaves": static_leaves,
    "grad_leaves": grad_leaves,
    "pmap_leaves": pmap_leaves,
    "vmap_leaves": vmap_leaves,
}
