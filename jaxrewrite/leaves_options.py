"""A transform's options as JAX reads them, for the per-leaf helpers that must rewrite them.

The helpers hand JAX a wrapper ``(held, /, *args, **kwargs)`` in place of the user's function,
so what JAX would read from the function's signature is read here first, from the user's:
which option a positional argument is, and the list JAX infers from the other (a name's
position, a position's name).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any


def options_by_name(
    transform: Callable[..., Any], args: tuple[Any, ...], keywords: dict[str, Any]
) -> dict[str, Any]:
    """The transform's positional options as the keywords they bind in its own signature
    (``pjit(f, in_shardings, out_shardings, ...)``), so the lists can be shifted. A keyword
    the rewrite wrote (the complete static lists) replaces the user's positional value it
    was merged from; any other option given twice is Python's TypeError."""
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


def completed(fun: Callable[..., Any], nums: Any, names: Any, what: str) -> tuple[Any, Any]:
    """(positions, names) as JAX completes them against ``fun``: when only one list is given,
    the other is inferred from the signature (positional-or-keyword parameters); a name the
    function cannot take is JAX's ValueError."""
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
