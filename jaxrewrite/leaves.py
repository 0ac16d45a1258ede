"""Run-time support for per-leaf statics: the only jaxrewrite code that runs on every call.

A parameter annotated with a TypedDict or NamedTuple whose fields are marked Static (or, for
grad, NoDiff) is split per call by the helper the table row's ``per_leaf`` names. The held
entries travel as a tuple of values in the declared key order (``MISSING`` for a key the dict
lacks), split by generated code, one straight-line function per shape of specs
(docs/design.md, "Per-leaf statics at run time"). Every other attribute of the transform's
result is delegated; ahead-of-time use takes the arguments a call takes, split alike.
"""

from __future__ import annotations

import functools
import inspect
import linecache
import operator
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

Fn = Callable[..., Any]
#: What jax.jit's result answers from its C type's slots (pickle's state, the vectorcall
#: offset), for the type's own protocols: a function has its own.
TYPE_SLOTS = frozenset({"__getstate__", "__setstate__", "__vectorcalloffset__"})
#: grad's extra keyword carrying the held entries; never a user parameter name.
STATIC_LEAVES = "_jaxrewrite_static_leaves"


class _Missing:
    """The held value of a key the dict lacks (``total=False``): equal only to itself, so
    "absent" and every real value are different cache keys."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"  # pickles as this module's one instance


MISSING: Any = _Missing()

Held = tuple[Any, ...]

#: Each key is a string, or ``(key, kind, keys)`` for an entry that is itself a container with
#: held entries (``class Outer(TypedDict): inner: Inner``), split inside this one to any depth.
LeafSpecs = tuple[tuple[str, int | None, str, tuple[Any, ...]], ...]


class _Leaf:
    """One per-leaf parameter (or an inner container of one). Its held values: the held keys'
    values, then per inner container its own held tuple (MISSING: key absent; None: value None)."""

    __slots__ = ("name", "position", "is_dict", "keys", "nulls", "inner", "given")

    def __init__(self, name: str, position: int | None, kind: str, keys: tuple[Any, ...]) -> None:
        flat = tuple(key for key in keys if isinstance(key, str))
        nested = tuple(key for key in keys if not isinstance(key, str))
        if not isinstance(name, str) or not all(
            isinstance(key, tuple) and len(key) == 3 for key in nested
        ):
            raise TypeError(
                f"per-leaf spec {(name, position, kind, keys)!r}: names and keys must be strings, "
                "or (key, kind, keys) for an inner container"
            )
        if kind not in ("dict", "namedtuple"):
            raise ValueError(
                f"per-leaf spec for {name!r}: kind must be 'dict' or 'namedtuple', not {kind!r}"
            )
        # An exact non-negative int: it is written into the generated call path's source.
        self.position = None if position is None else operator.index(position)
        if self.position is not None and self.position < 0:
            raise ValueError(f"per-leaf spec for {name!r}: position must be >= 0, not {position}")
        self.name = name
        self.is_dict = kind == "dict"
        self.keys = flat
        self.nulls = dict.fromkeys(self.keys)
        self.inner = tuple(
            _Leaf(key, None, inner_kind, inner_keys) for key, inner_kind, inner_keys in nested
        )
        self.given = tuple(keys)

    def moved(self, position: int) -> _Leaf:
        """The same spec at ``position`` (an executable's arguments lack the static ones)."""
        return _Leaf(self.name, position, "dict" if self.is_dict else "namedtuple", self.given)

    def split(self, value: Any, hold: bool = False) -> tuple[Any, Held | None]:
        """(the argument without its held entries, their values). ``hold``: the entries become
        None instead, so the argument keeps its tree structure (grad's gradient, ``in_axes``).
        None passes whole and holds nothing, like an argument not passed."""
        if value is None:
            return None, None
        if self.is_dict:
            if type(value) is not dict and not isinstance(value, Mapping):
                self._refuse(value)
            dynamic = dict(value)
            if hold:
                held = [dynamic.get(key, MISSING) for key in self.keys]
                dynamic.update((key, None) for key in self.keys if key in dynamic)
            else:
                held = [dynamic.pop(key, MISSING) for key in self.keys]
            for inner in self.inner:
                if inner.name in dynamic:
                    dynamic[inner.name], values = inner.split(dynamic[inner.name], hold)
                    held.append(values)
                else:
                    held.append(MISSING)
            return dynamic, tuple(held)
        if not hasattr(value, "_replace"):
            self._refuse(value)
        held = [getattr(value, key) for key in self.keys]
        replaced = dict(self.nulls)  # a NamedTuple keeps its fields, as None, either way
        for inner in self.inner:
            replaced[inner.name], values = inner.split(getattr(value, inner.name), hold)
            held.append(values)
        return value._replace(**replaced), tuple(held)

    def merge(self, dynamic: Any, held: Held) -> Any:
        """``dynamic`` with the held entries back (trace time only)."""
        back = {key: value for key, value in zip(self.keys, held) if value is not MISSING}
        for inner, values in zip(self.inner, held[len(self.keys) :]):
            if values is not MISSING and values is not None:  # absent, or None passed whole
                part = dynamic[inner.name] if self.is_dict else getattr(dynamic, inner.name)
                back[inner.name] = inner.merge(part, values)
        if self.is_dict:
            return {**dynamic, **back}
        return dynamic._replace(**back)

    def _refuse(self, value: Any) -> NoReturn:
        what = (
            "a dict (it has per-leaf entries)"
            if self.is_dict
            else "a NamedTuple (it has per-leaf fields)"
        )
        raise TypeError(f"argument {self.name!r} must be {what}, got {type(value).__name__}")


def _named_like(wrapper: Fn, fun: Fn) -> None:
    """Without ``__wrapped__``: JAX must see the wrapper's own signature."""
    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(wrapper, attr, getattr(fun, attr, getattr(wrapper, attr)))


def _unpartial(
    transform: Fn, args: tuple[Any, ...], keywords: dict[str, Any]
) -> tuple[Fn, tuple[Any, ...], dict[str, Any]]:
    """``partial(jax.pmap, in_axes=...)`` as the transform and its options."""
    while isinstance(transform, functools.partial):
        args = (*transform.args, *args)
        keywords = {**transform.keywords, **keywords}
        transform = transform.func
    return transform, args, keywords


def _shifted(nums: Any) -> tuple[int, ...]:
    """Argument positions after one new leading argument (negative ones count from the end)."""
    items = (nums,) if isinstance(nums, int) else tuple(nums or ())
    return tuple(n + 1 if n >= 0 else n for n in items)


# --- the transform's options as JAX reads them against the user's function (JAX itself sees only
# the helper's wrapper ``(held, /, *args, **kwargs)``) ---------------------------------------


def options_by_name(
    transform: Fn, args: tuple[Any, ...], keywords: dict[str, Any]
) -> dict[str, Any]:
    """The transform's positional options as the keywords they bind in its own signature
    (``pjit(f, in_shardings, ...)``), so the lists can be shifted. A keyword the rewrite wrote
    (the complete static lists) replaces the positional value it was merged from."""
    name = getattr(transform, "__name__", "the transform")
    try:
        params = list(inspect.signature(transform).parameters.values())[1:]  # after the function
    except (TypeError, ValueError):
        raise TypeError(
            f"per-leaf statics: pass {name}'s options by keyword: its signature cannot be read, so "
            "jaxrewrite cannot tell which option a positional argument is"
        ) from None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    positional = [p.name for p in params if p.kind in kinds]
    if len(args) > len(positional):
        count = len(positional) + 1
        raise TypeError(
            f"{name}() takes {count} positional argument{'s' if count != 1 else ''} but "
            f"{len(args) + 1} were given"
        )
    bound = dict(zip(positional, args))
    for option in bound.keys() & keywords.keys():
        if option not in ("static_argnums", "static_argnames"):
            raise TypeError(f"{name}() got multiple values for argument {option!r}")
    return {**bound, **keywords}


def completed(fun: Fn, nums: Any, names: Any, what: str) -> tuple[Any, Any]:
    """(positions, names) as JAX completes them against ``fun`` when only one list is given; a
    name the function cannot take is JAX's ValueError."""
    if nums is not None and names is not None:
        return nums, names
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return nums, names  # no signature: JAX's own rule (no inference) applies to the wrapper
    either = inspect.Parameter.POSITIONAL_OR_KEYWORD
    if nums is None:
        listed = (names,) if isinstance(names, str) else tuple(names)
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
        keywords = {p.name for p in params if p.kind in (either, inspect.Parameter.KEYWORD_ONLY)}
        unknown = [n for n in listed if n not in keywords and not takes_any]
        if unknown or any(
            p.name in listed and p.kind is inspect.Parameter.POSITIONAL_ONLY for p in params
        ):
            raise ValueError(
                f"Jitted function has invalid argnames {set(listed) - keywords} in {what}: "
                "it does not take these arguments by keyword"
            )
        return tuple(
            i for i, p in enumerate(params) if p.kind is either and p.name in listed
        ), listed
    positions = (nums,) if isinstance(nums, int) else tuple(nums)
    return positions, tuple(
        p.name for i, p in enumerate(params) if p.kind is either and i in positions
    )


# --- the generated call path ---------------------------------------------------------------


def _tuple_source(items: list[str]) -> str:
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


@functools.lru_cache(maxsize=256)
def _call_path_factory(
    shape: tuple[tuple[int | None, bool, int], ...], hold: bool, hashed: bool
) -> Fn:
    """``make(target, names, keys, splits, nulls) -> call`` for one shape of specs ((position, is
    a dict, number of keys) each). Only exact ints and generated identifiers reach the source."""
    lines = [
        "def make(target, names, keys, splits, nulls):",
        *(
            f"    name{i}, split{i}, nulls{i} = names[{i}], splits[{i}], nulls[{i}]"
            for i in range(len(shape))
        ),
        *(
            f"    {_tuple_source([f'key{i}_{j}' for j in range(count)])} = keys[{i}]"
            for i, (_, _, count) in enumerate(shape)
            if count
        ),
        "    def call(*args, **kwargs):",
        "        n = len(args)",
    ]
    body: list[str] = []
    for i, (position, is_dict, count) in enumerate(shape):
        by_name = [
            f"if name{i} in kwargs:",
            f"    kwargs[name{i}], h{i} = split{i}(kwargs[name{i}])",
            "else:",
            f"    h{i} = None",
        ]
        if position is None:
            body += by_name
            continue
        body += [f"if n > {position}:", f"    value = args[{position}]"]
        if is_dict:
            if hold:  # all keys present (the common case): None at them in one C-level merge
                found = _tuple_source([f"value[key{i}_{j}]" for j in range(count)])
                fast = [
                    "try:",
                    f"    h{i} = {found}",
                    "except KeyError:",
                    f"    d{i}, h{i} = split{i}(value)",
                    "else:",
                    f"    d{i} = value | nulls{i}",
                ]
            else:
                popped = _tuple_source([f"d{i}.pop(key{i}_{j}, MISSING)" for j in range(count)])
                fast = [f"d{i} = value.copy()", f"h{i} = {popped}"]
            body += ["    if type(value) is dict:", *("        " + line for line in fast)]
            body += ["    else:", f"        d{i}, h{i} = split{i}(value)"]
        else:
            body += [f"    d{i}, h{i} = split{i}(value)"]
        body += ["el" + by_name[0], *by_name[1:]]
    # What travels: one parameter's held tuple itself (the common case: no wrapping tuple to
    # build and hash per call), else one entry per parameter.
    single = len(shape) == 1
    body.append(
        "held = h0" if single else "held = " + _tuple_source([f"h{i}" for i in range(len(shape))])
    )
    calls: list[str] = []
    positional = [(i, position) for i, (position, _, _) in enumerate(shape) if position is not None]
    if single and positional:
        # One per-leaf parameter (the common case): plain calls for the common arities.
        [(i, p)] = positional
        before = [f"args[{k}]" for k in range(p)]
        calls += [
            f"if n > {p}:",
            "    if not kwargs:",
            f"        if n == {p + 1}:",
            f"            return target({', '.join(['held', *before, f'd{i}'])})",
            f"        if n == {p + 2}:",
            f"            return target({', '.join(['held', *before, f'd{i}', f'args[{p + 1}]'])})",
            f"    return target(held, *args[:{p}], d{i}, *args[{p + 1}:], **kwargs)",
        ]
    else:
        for i, p in positional:
            calls += [f"if n > {p}:", f"    args = (*args[:{p}], d{i}, *args[{p + 1}:])"]
    calls.append("return target(held, *args, **kwargs)")
    if not hashed:  # grad and vmap: nothing hashes the held entries
        body += calls
    else:
        # JAX refuses an unhashable static argument with a ValueError that shows the whole held
        # tuple; name the entry instead (only on that error path: a try costs nothing until then).
        body += ["try:", *("    " + line for line in calls), "except ValueError as error:"]
        body += [
            f"    _name_unhashable(names, keys, {'(held,)' if single else 'held'}, error)",
            "    raise",
        ]
    lines += ["        " + line for line in body]
    lines.append("    return call")
    source = "\n".join(lines) + "\n"
    # Tracebacks through the call path show its lines: one linecache entry per shape (bounded
    # by this cache), as attrs does for its generated methods.
    filename = f"<jaxrewrite.leaves call path, {'hold' if hold else 'split'} {shape} {hashed}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict[str, Any] = {"MISSING": MISSING, "_name_unhashable": _name_unhashable}
    exec(compile(source, filename, "exec"), namespace)
    make: Fn = namespace["make"]
    return make


def _call_path(specs: tuple[_Leaf, ...], hold: bool, hashed: bool = True) -> Callable[[Fn], Fn]:
    """``target -> call``: ``call(*args, **kwargs)`` splits each per-leaf argument and returns
    ``target(held, *args, **kwargs)``; ``held`` is the one spec's held tuple (or None), or one
    such entry per spec. The call and the AOT methods split through it alike. ``hashed``: the
    transform hashes what is held, so an unhashable entry is named."""
    # An inner container takes the general split (the unrolled dict path pops flat keys only).
    make = _call_path_factory(
        tuple((s.position, s.is_dict and not s.inner, len(s.keys)) for s in specs), hold, hashed
    )
    names = tuple(spec.name for spec in specs)
    keys = tuple(spec.keys for spec in specs)
    splits = tuple(functools.partial(s.split, hold=True) if hold else s.split for s in specs)
    nulls = tuple(spec.nulls for spec in specs)
    return lambda target: make(target, names, keys, splits, nulls)


def _name_unhashable(
    names: tuple[str, ...],
    keys: tuple[tuple[str, ...], ...],
    held: tuple[Held | None, ...],
    error: ValueError,
) -> None:
    """Raise a ValueError naming the first unhashable held entry, if there is one."""
    for name, spec_keys, values in zip(names, keys, held):
        for key, value in zip(spec_keys, values or ()):
            try:
                hash(value)
            except Exception as problem:
                raise ValueError(
                    f"Non-hashable static arguments are not supported: the static entry {key!r} of "
                    f"argument {name!r} is {type(value).__name__} {value!r} "
                    f"({type(problem).__name__}: {problem}). Static entries are hashed into the "
                    "transform's cache key, as static arguments are; pass a hashable value (a "
                    "tuple, not a list), or declare the entry without Static to trace it."
                ) from error


def _merging(specs: tuple[_Leaf, ...], fun: Fn) -> Fn:
    """``fun`` behind a leading parameter taking the held entries, put back at trace time. It is
    positional-only, so no user keyword can collide with it."""
    single = len(specs) == 1

    def inner(_jaxrewrite_held: Any, /, *args: Any, **kwargs: Any) -> Any:
        for spec, values in zip(specs, (_jaxrewrite_held,) if single else _jaxrewrite_held):
            at = spec.position
            if values is None:
                continue
            if at is not None and len(args) > at:
                args = (*args[:at], spec.merge(args[at], values), *args[at + 1 :])
            else:
                kwargs[spec.name] = spec.merge(kwargs[spec.name], values)
        return fun(*args, **kwargs)

    _named_like(inner, fun)
    return inner


# --- the helpers the rewritten code calls ---------------------------------------------------


def static_leaves(transform: Fn, fun: Fn, leaves: LeafSpecs, *args: Any, **keywords: Any) -> Fn:
    """``transform(fun, *args, **keywords)`` (jit, pjit) where the listed arguments carry
    static entries: ``leaves`` holds (parameter name, position or None, "dict" or "namedtuple",
    static keys). The held entries travel as a new leading argument marked static (cheaper per
    call than a static keyword), so ``static_argnums``/``donate_argnums``, first completed
    against ``fun`` as JAX completes them, shift by one (``in_shardings`` counts dynamic ones).
    """
    transform, args, keywords = _unpartial(transform, args, keywords)
    if args:
        keywords = options_by_name(transform, args, keywords)
    for nums, names in (
        ("static_argnums", "static_argnames"),
        ("donate_argnums", "donate_argnames"),
    ):
        if keywords.get(nums) is not None or keywords.get(names) is not None:
            keywords[nums], keywords[names] = completed(
                fun, keywords.get(nums), keywords.get(names), names
            )
    if keywords.get("donate_argnums") is not None:
        keywords["donate_argnums"] = _shifted(keywords["donate_argnums"])
    return _leading(transform, fun, leaves, (), keywords, "static_argnums")


def pmap_leaves(transform: Fn, fun: Fn, leaves: LeafSpecs, *args: Any, **keywords: Any) -> Fn:
    """``transform(fun, *args, **keywords)`` (pmap) with the listed static entries broadcast
    as a new leading argument (pmap hashes only positional statics): the lists shift by one
    and a tuple ``in_axes`` gains a leading None."""
    transform, args, keywords = _unpartial(transform, args, keywords)
    if "donate_argnums" in keywords:
        keywords["donate_argnums"] = _shifted(keywords["donate_argnums"])
    in_axes = keywords.get("in_axes", 0)
    if isinstance(in_axes, (tuple, list)):
        keywords["in_axes"] = (None, *in_axes)
    return _leading(transform, fun, leaves, args, keywords, "static_broadcasted_argnums")


def _leading(
    transform: Fn, fun: Fn, leaves: LeafSpecs, args: Any, keywords: dict[str, Any], statics: str
) -> Fn:
    """jit and pmap: the held entries as a new leading argument, 0 in the ``statics`` option
    (split out for jit, held as None for pmap, whose ``in_axes`` must still fit); the
    transform's result is ``outer.jitted`` or ``outer.mapped``."""
    specs = tuple(_Leaf(*leaf) for leaf in leaves)
    user_static = keywords.get(statics)
    keywords[statics] = (0, *_shifted(user_static))
    transformed = transform(_merging(specs, fun), *args, **keywords)
    hold = statics != "static_argnums"
    outer = _call_path(specs, hold)(transformed)
    functools.update_wrapper(outer, fun, updated=())
    setattr(outer, "mapped" if hold else "jitted", transformed)
    forward(outer, transformed, fun, specs, hold, user_static)
    return outer


def grad_leaves(transform: Fn, fun: Fn, leaves: LeafSpecs, *args: Any, **keywords: Any) -> Fn:
    """``transform(fun, *args, **keywords)`` (grad and its kin) with the listed entries held
    out of differentiation as one keyword, which grad never differentiates nor hashes."""
    specs = tuple(_Leaf(*leaf) for leaf in leaves)
    merged = _merging(specs, fun)

    def inner(*a: Any, **kw: Any) -> Any:
        return merged(kw.pop(STATIC_LEAVES), *a, **kw)

    _named_like(inner, fun)
    transformed = transform(inner, *args, **keywords)
    return _holding(
        specs, fun, lambda held, *a, **kw: transformed(*a, **kw, **{STATIC_LEAVES: held})
    )


def vmap_leaves(transform: Fn, fun: Fn, leaves: LeafSpecs, *args: Any, **keywords: Any) -> Fn:
    """``transform(fun, *args, **keywords)`` (vmap) with the listed static entries unmapped:
    vmap maps every keyword argument and keeps no cache, so each call maps a fresh closure."""
    specs = tuple(_Leaf(*leaf) for leaf in leaves)
    merged = _merging(specs, fun)

    def mapped(held: Any, *a: Any, **kw: Any) -> Any:
        def inner(*ia: Any, **ikw: Any) -> Any:
            return merged(held, *ia, **ikw)

        _named_like(inner, fun)
        return transform(inner, *args, **keywords)(*a, **kw)

    return _holding(specs, fun, mapped)


def _holding(specs: tuple[_Leaf, ...], fun: Fn, target: Fn) -> Fn:
    """grad and vmap: ``target(held, ...)`` called with the held entries None in the argument,
    which so keeps its structure (the gradient's; an ``in_axes`` written for it)."""
    return functools.update_wrapper(_call_path(specs, True, False)(target), fun, updated=())


#: The per-leaf policies by the name a table row's ``per_leaf`` gives.
_HELPERS = {f.__name__: f for f in (static_leaves, grad_leaves, pmap_leaves, vmap_leaves)}


def at_call(helper: str, transform: Fn, leaves: LeafSpecs) -> Fn:
    """``at_call('static_leaves', jax.jit, leaves)(fun, ...)`` is ``static_leaves(jax.jit, fun,
    leaves, ...)``: a call site's own arguments stay as written."""
    policy = _HELPERS[helper]
    return lambda fun, *args, **keywords: policy(transform, fun, leaves, *args, **keywords)


# --- ahead-of-time use: what a jit or pmap per-leaf function answers besides a call -----------


def forward(
    outer: Fn, transformed: Any, fun: Fn, specs: tuple[_Leaf, ...], hold: bool, static_nums: Any
) -> None:
    """Give ``outer`` what the transform's result answers that a function does not
    (``_cache_size()``, ``clear_cache``, ``lower``), only what this result has. What takes the
    call's arguments takes them split as a call splits them; ``static_nums``: the user's whole
    static positions, which JAX leaves out of the executable's arguments."""
    for name in dir(transformed):
        if name in TYPE_SLOTS or hasattr(outer, name):
            continue
        value = getattr(transformed, name)
        if name == "_fun":
            value = fun
        elif name == "__signature__":
            try:
                value = inspect.signature(fun)
            except (ValueError, TypeError):
                value = None  # inspect then follows ``__wrapped__``
        elif name in ("lower", "trace", "eval_shape", "_cache_miss"):
            if name in ("lower", "trace"):
                value = _staged(value, specs, hold, static_nums)
            value = _call_path(specs, hold)(value)
            value.__name__ = name
            value.__qualname__ = f"{outer.__qualname__}.{name}"
            value.__doc__ = (
                f"The transformed function's ``{name}``, its arguments split as a call's."
            )
        setattr(outer, name, value)


def _staged(method: Fn, specs: tuple[_Leaf, ...], hold: bool, static_nums: Any) -> Fn:
    """``method`` (``jitted.lower``, ``jitted.trace``) returning its stage wrapped, which knows
    the held values the executable is specialised to."""

    def stage(held: Any, *args: Any, **kwargs: Any) -> _Stage:
        items = (static_nums,) if isinstance(static_nums, int) else tuple(static_nums or ())
        static = {n if n >= 0 else n + len(args) for n in items}
        # JAX's executable takes the arguments less the whole static ones: a per-leaf
        # argument moves left by the static positions before it.
        moved = tuple(
            spec
            if spec.position is None
            else spec.moved(spec.position - sum(1 for n in static if n < spec.position))
            for spec in specs
        )
        single = len(specs) == 1

        def checked(compiled: Any, given: Any, *args: Any, **kwargs: Any) -> Any:
            # The held entries split out again must be those it was lowered with, as JAX's
            # executable refuses others.
            for spec, want, got in zip(
                specs, (held,) if single else held, (given,) if single else given
            ):
                if want != got:
                    raise TypeError(
                        f"argument {spec.name!r}: this executable was lowered for the static "
                        f"entries {_shown(spec.keys, want)}, but is called with "
                        f"{_shown(spec.keys, got)}; lower again for other static entries"
                    )
            return compiled(*args, **kwargs)

        def call(compiled: Any) -> Fn:
            return _call_path(moved, hold)(lambda *a, **k: checked(compiled, *a, **k))

        return _Stage(method(held, *args, **kwargs), call)

    return stage


def _shown(keys: tuple[str, ...], values: tuple[Any, ...] | None) -> str:
    if values is None:
        return "of the default or None (argument not passed, or passed None)"
    return "{" + ", ".join(f"{key!r}: {value!r}" for key, value in zip(keys, values)) + "}"


class _Stage:
    """A stage of ahead-of-time use (JAX's ``Traced``, ``Lowered``, ``Compiled``) whose next
    stage, and in the end the executable, takes the arguments the user's function takes;
    everything else is the JAX object's own."""

    __slots__ = ("_stage", "_call", "_made")

    def __init__(self, stage: Any, call: Callable[[Any], Fn]) -> None:
        self._stage = stage
        self._call = call
        self._made: Fn | None = None

    def __getattr__(self, name: str) -> Any:
        if name in _Stage.__slots__:  # not set yet (copy, pickle): no recursion
            raise AttributeError(name)
        value = getattr(self._stage, name)
        if name in ("lower", "compile"):
            return lambda *a, **k: _Stage(value(*a, **k), self._call)
        return value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._made is None:
            self._made = self._call(self._stage)
        return self._made(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<jaxrewrite per-leaf {type(self._stage).__name__.lower()}: {self._stage!r}>"
