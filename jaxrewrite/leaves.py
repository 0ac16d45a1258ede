"""Run-time support for per-leaf statics: the only jaxrewrite code that runs on every call.

A parameter annotated with a TypedDict or NamedTuple whose fields are marked Static is
split per call: its static entries travel to the jitted function as one static keyword
(hashed into JAX's cache key), the rest as an ordinary dynamic pytree. The split copies
the container once (a C-level dict copy or ``_replace``) and touches only the static keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

#: The extra static keyword carrying the split-out entries; never a user parameter name.
STATIC_LEAVES = "_jaxrewrite_static_leaves"

Pairs = tuple[tuple[str, Any], ...]

#: The jitted function's methods besides calling that take the call's arguments (so get
#: the same split): ahead-of-time lowering, tracing and shape evaluation.
AOT_METHODS = ("lower", "trace", "eval_shape")


class _Leaf:
    """One per-leaf parameter: where it is passed, what container it is, its static keys."""

    __slots__ = ("name", "position", "is_dict", "keys", "nulls")

    def __init__(self, name: str, position: int | None, kind: str, keys: tuple[str, ...]) -> None:
        self.name = name
        self.position = position
        self.is_dict = kind == "dict"
        self.keys = keys
        self.nulls = dict.fromkeys(keys)

    def split(self, value: Any) -> tuple[Any, Pairs]:
        # Written for the per-call hot path: no comprehension frames, and the exact-dict
        # check first (an ABC isinstance check costs microseconds when caches are cold).
        if self.is_dict:
            if type(value) is not dict and not isinstance(value, Mapping):
                raise TypeError(
                    f"argument {self.name!r} must be a dict (it has Static entries), got {type(value).__name__}"
                )
            dynamic = dict(value)
            pairs = []
            for key in self.keys:
                if key in dynamic:
                    pairs.append((key, dynamic.pop(key)))
            return dynamic, tuple(pairs)
        if not hasattr(value, "_replace"):
            raise TypeError(
                f"argument {self.name!r} must be a NamedTuple (it has Static fields), got {type(value).__name__}"
            )
        pairs = []
        for key in self.keys:
            pairs.append((key, getattr(value, key)))
        return value._replace(**self.nulls), tuple(pairs)

    def merge(self, dynamic: Any, pairs: Pairs) -> Any:
        if self.is_dict:
            return {**dynamic, **dict(pairs)}
        return dynamic._replace(**dict(pairs))


def static_leaves(
    transform: Callable[..., Any],
    fun: Callable[..., Any],
    leaves: tuple[tuple[str, int | None, str, tuple[str, ...]], ...],
    **keywords: Any,
) -> Callable[..., Any]:
    """``transform(fun, **keywords)`` where the listed arguments carry static entries.

    ``leaves`` holds (parameter name, position or None, "dict" or "namedtuple", static keys).
    """
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
    """``_splitting`` for one per-leaf parameter, without the loop."""
    position, name, split_one = spec.position, spec.name, spec.split

    def outer(*args: Any, **kwargs: Any) -> Any:
        if position is not None and len(args) > position:
            dynamic, pairs = split_one(args[position])
            args = args[:position] + (dynamic,) + args[position + 1 :]
        elif name in kwargs:
            kwargs[name], pairs = split_one(kwargs[name])
        else:
            pairs = None  # the default is used inside the traced function, untraced
        kwargs[STATIC_LEAVES] = (pairs,)
        return target(*args, **kwargs)

    return outer
