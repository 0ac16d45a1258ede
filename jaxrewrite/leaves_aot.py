"""What a per-leaf function answers besides a call: every attribute of the transform's result,
by delegation. Ahead-of-time use (``lower``, ``trace``, ``eval_shape``) takes the arguments the
user's function takes, split as a call splits them (``jaxrewrite.leaves``, which passes its call
path in: this module imports nothing of it), at each stage and in the end the executable."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

#: The transforms' AOT methods that take the call's arguments.
AOT_METHODS = ("lower", "trace", "eval_shape")
#: What jax.jit's result answers from its C type's slots (pickle's state, the vectorcall
#: offset), for the type's own protocols: a function has its own.
TYPE_SLOTS = frozenset({"__getstate__", "__setstate__", "__vectorcalloffset__"})
Held = tuple[Any, ...]
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
    (``_cache_size()``, ``clear_cache``, ``lower``), only what this result has.

    What takes the call's arguments (the AOT methods, ``_cache_miss``) takes them split as a
    call splits them; what ``lower`` returns compiles to an executable that takes what
    ``outer`` takes (``static_nums``: the user's whole static positions, which JAX leaves out
    of the executable's arguments). ``_fun`` and ``__signature__`` are the user's function and
    its signature, as for jax.jit's result."""
    splitting = call_path(specs, hold)
    for name in dir(transformed):
        if name in TYPE_SLOTS or hasattr(outer, name):
            continue
        if name == "_fun":
            value: Any = fun
        elif name == "__signature__":
            value = _signature(fun)
        elif name in AOT_METHODS or name == "_cache_miss":
            target = getattr(transformed, name)
            if name in ("lower", "trace"):
                stage = _Lowered if name == "lower" else _Traced
                target = _staged(target, stage, specs, hold, static_nums, call_path)
            value = splitting(target)
            value.__name__ = name
            value.__qualname__ = f"{outer.__qualname__}.{name}"
            value.__doc__ = (
                f"The transformed function's ``{name}``, its arguments split as a call's."
            )
        else:
            value = getattr(transformed, name)
        setattr(outer, name, value)


def _signature(fun: Callable[..., Any]) -> inspect.Signature | None:
    """``fun``'s signature, or None (inspect then follows ``__wrapped__``)."""
    try:
        return inspect.signature(fun)
    except (ValueError, TypeError):
        return None


def _staged(
    method: Callable[..., Any],
    kind: type[_Stage],
    specs: tuple[Any, ...],
    hold: bool,
    static_nums: Any,
    call_path: CallPath,
) -> Callable[..., Any]:
    """``method`` (``jitted.lower``, ``jitted.trace``) returning its stage wrapped."""

    def stage(held: Any, *args: Any, **kwargs: Any) -> _Stage:
        context = _Lowering(specs, hold, held, static_nums, len(args), call_path)
        return kind(method(held, *args, **kwargs), context)

    return stage


class _Lowering:
    """What one ``lower`` (or ``trace``) call was given: the held values the executable is
    specialised to, and where each per-leaf argument sits among the executable's arguments."""

    __slots__ = ("specs", "hold", "held", "call_path")

    def __init__(
        self,
        specs: tuple[Any, ...],
        hold: bool,
        held: Any,
        static_nums: Any,
        n_args: int,
        call_path: CallPath,
    ) -> None:
        items = (static_nums,) if isinstance(static_nums, int) else tuple(static_nums or ())
        static = {n if n >= 0 else n + n_args for n in items}
        # JAX's executable takes the arguments less the whole static ones: a per-leaf
        # argument moves left by the static positions before it.
        self.specs = tuple(
            spec
            if spec.position is None
            else spec.moved(spec.position - sum(1 for n in static if n < spec.position))
            for spec in specs
        )
        self.hold = hold
        self.held = held
        self.call_path = call_path

    def call(self, compiled: Any) -> Callable[..., Any]:
        """``compiled`` taking the arguments the user's function takes; the held entries split
        out again must be those it was lowered with, as JAX's executable refuses others."""
        held = self.held
        names = tuple(spec.name for spec in self.specs)
        keys = tuple(spec.keys for spec in self.specs)

        def checked(given: Any, *args: Any, **kwargs: Any) -> Any:
            if given != held:
                single = len(names) == 1
                for name, spec_keys, want, got in zip(
                    names, keys, (held,) if single else held, (given,) if single else given
                ):
                    if want != got:
                        raise TypeError(
                            f"argument {name!r}: this executable was lowered for the static "
                            f"entries {_shown(spec_keys, want)}, but is called with "
                            f"{_shown(spec_keys, got)}; lower again for other static entries"
                        )
            return compiled(*args, **kwargs)

        return self.call_path(self.specs, self.hold)(checked)


def _shown(keys: tuple[str, ...], values: Held | None) -> str:
    if values is None:
        return "of the default or None (argument not passed, or passed None)"
    return "{" + ", ".join(f"{key!r}: {value!r}" for key, value in zip(keys, values)) + "}"


class _Stage:
    """A stage of ahead-of-time use (JAX's ``Traced``, ``Lowered``, ``Compiled``) whose next
    stage, and in the end the executable, takes the arguments the user's function takes;
    everything else is the JAX object's own."""

    __slots__ = ("_stage", "_context")

    def __init__(self, stage: Any, context: _Lowering) -> None:
        self._stage = stage
        self._context = context

    def __getattr__(self, name: str) -> Any:
        if name in _Stage.__slots__:  # not set yet (copy, pickle): no recursion
            raise AttributeError(name)
        return getattr(self._stage, name)

    def __repr__(self) -> str:
        return f"<jaxrewrite per-leaf {type(self).__name__.strip('_').lower()}: {self._stage!r}>"


class _Traced(_Stage):
    __slots__ = ()

    def lower(self, *args: Any, **kwargs: Any) -> _Lowered:
        return _Lowered(self._stage.lower(*args, **kwargs), self._context)


class _Lowered(_Stage):
    __slots__ = ()

    def compile(self, *args: Any, **kwargs: Any) -> _Compiled:
        return _Compiled(self._stage.compile(*args, **kwargs), self._context)


class _Compiled(_Stage):
    __slots__ = ("_call",)

    def __init__(self, stage: Any, context: _Lowering) -> None:
        super().__init__(stage, context)
        self._call = context.call(stage)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(*args, **kwargs)
