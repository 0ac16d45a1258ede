"""Ahead-of-time use of a per-leaf function (``lower``, ``trace``, ``eval_shape``): each stage,
and in the end the executable, takes the arguments the user's function takes, split as a call
splits them (``jaxrewrite.leaves``, which passes its call path in: this module imports nothing
of it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: The transforms' AOT methods that take the call's arguments.
AOT_METHODS = ("lower", "trace", "eval_shape")
Held = tuple[Any, ...]
#: ``leaves._call_path``: (specs, hold) -> a decorator that splits the arguments as a call does.
CallPath = Callable[[tuple[Any, ...], bool], Callable[[Callable[..., Any]], Callable[..., Any]]]


def add_aot(
    outer: Callable[..., Any],
    transformed: Any,
    specs: tuple[Any, ...],
    hold: bool,
    static_nums: Any,
    call_path: CallPath,
) -> None:
    """Give ``outer`` what the transform's result offers besides calling (``lower``,
    ``trace``, ``eval_shape``), behind the same split; only what this result has, so an
    attribute an older JAX lacks stays an AttributeError here too. What ``lower`` returns
    compiles to an executable that takes what ``outer`` takes (``static_nums``: the user's
    whole static positions, left out of the executable's arguments as JAX leaves them out)."""
    splitting = call_path(specs, hold)
    for method in AOT_METHODS:
        target = getattr(transformed, method, None)
        if target is None:
            continue
        if method != "eval_shape":
            target = _staged(target, _Lowered if method == "lower" else _Traced, specs, hold, static_nums, call_path)
        aot = splitting(target)
        aot.__name__ = method
        aot.__qualname__ = f"{outer.__qualname__}.{method}"
        aot.__doc__ = f"``{method}`` of the transformed function, with the arguments split as a call splits them."
        setattr(outer, method, aot)


def _staged(
    method: Callable[..., Any],
    kind: type[_Stage],
    specs: tuple[Any, ...],
    hold: bool,
    static_nums: Any,
    call_path: CallPath,
) -> Callable[..., Any]:
    """``method`` (``jitted.lower``, ``jitted.trace``) returning its stage wrapped, with what
    this call was given."""

    def stage(held: Any, *args: Any, **kwargs: Any) -> _Stage:
        context = _Lowering(specs, hold, held, static_nums, len(args), call_path)
        return kind(method(held, *args, **kwargs), context)

    return stage


class _Lowering:
    """What one ``lower`` (or ``trace``) call was given: the held values the executable is
    specialised to, and where each per-leaf argument sits among the executable's arguments."""

    __slots__ = ("specs", "hold", "held", "call_path")

    def __init__(
        self, specs: tuple[Any, ...], hold: bool, held: Any, static_nums: Any, n_args: int, call_path: CallPath
    ) -> None:
        items = (static_nums,) if isinstance(static_nums, int) else tuple(static_nums or ())
        static = {n if n >= 0 else n + n_args for n in items}
        # JAX's executable takes the arguments less the whole static ones: a per-leaf
        # argument moves left by the static positions before it.
        self.specs = tuple(
            spec if spec.position is None else spec.moved(spec.position - sum(1 for n in static if n < spec.position))
            for spec in specs
        )
        self.hold = hold
        self.held = held
        self.call_path = call_path

    def call(self, compiled: Any) -> Callable[..., Any]:
        """``compiled`` taking the arguments the user's function takes: the held entries are
        split out again and must be those it was lowered with (JAX's own executable refuses
        arguments that do not match what it was lowered for)."""
        held = self.held
        names = tuple(spec.name for spec in self.specs)
        keys = tuple(spec.keys for spec in self.specs)

        def checked(given: Any, *args: Any, **kwargs: Any) -> Any:
            if given != held:
                single = len(names) == 1
                for name, spec_keys, want, got in zip(names, keys, (held,) if single else held, (given,) if single else given):
                    if want != got:
                        raise TypeError(
                            f"argument {name!r}: this executable was lowered for the static entries "
                            f"{_shown(spec_keys, want)}, but is called with {_shown(spec_keys, got)}; "
                            "lower again for other static entries"
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
