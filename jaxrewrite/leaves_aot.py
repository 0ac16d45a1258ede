"""What a per-leaf function answers besides a call: every attribute of the transform's result,
by delegation. Ahead-of-time use (``lower``, ``trace``, ``eval_shape``) takes the arguments the
user's function takes, split as a call splits them (``jaxrewrite.leaves``, which passes its call
path in: this module imports nothing of it), at each stage and in the end the executable."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

#: What jax.jit's result answers from its C type's slots (pickle's state, the vectorcall
#: offset), for the type's own protocols: a function has its own.
TYPE_SLOTS = frozenset({"__getstate__", "__setstate__", "__vectorcalloffset__"})
#: ``leaves._call_path``: (specs, hold) -> a decorator that splits the arguments as a call does.
CallPath = Callable[[tuple[Any, ...], bool], Callable[[Callable[..., Any]], Callable[..., Any]]]


def forward(
    outer: Callable[..., Any],
    transformed: Any,
    fun: Callable[..., Any],
    specs: tuple[Any, ...],
    hold: bool,
    static_nums: Any,
    call_path: CallPath,
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
                value = _staged(value, specs, hold, static_nums, call_path)
            value = call_path(specs, hold)(value)
            value.__name__ = name
            value.__qualname__ = f"{outer.__qualname__}.{name}"
            value.__doc__ = (
                f"The transformed function's ``{name}``, its arguments split as a call's."
            )
        setattr(outer, name, value)


def _staged(
    method: Callable[..., Any],
    specs: tuple[Any, ...],
    hold: bool,
    static_nums: Any,
    call_path: CallPath,
) -> Callable[..., Any]:
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

        def call(compiled: Any) -> Callable[..., Any]:
            return call_path(moved, hold)(lambda *a, **k: checked(compiled, *a, **k))

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

    def __init__(self, stage: Any, call: Callable[[Any], Callable[..., Any]]) -> None:
        self._stage = stage
        self._call = call
        self._made: Callable[..., Any] | None = None

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
