"""Derive, from the installed JAX, which library parameters must be Python values (JR006's sinks).

Nothing here is written by hand about JAX: each public function of the probed modules is called
eagerly with small sample arguments until one call succeeds, then each parameter that call gave a
Python number or tuple is passed to ``jax.jit`` as a traced argument; the parameter must be concrete
when that trace raises one of JAX's trace-time errors. A maintainer's tool, not shipped:
``python tools/derive_concrete.py`` rewrites ``jaxrewrite/engine/rulebook/concrete_params.json``;
tests/rules/test_concrete_table.py re-probes every row against the installed JAX.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import json
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from jaxrewrite.engine.rulebook.concrete_table import DATA

MODULES = (
    "jax.numpy",
    "jax.numpy.linalg",
    "jax.numpy.fft",
    "jax.lax",
    "jax.nn",
    "jax.random",
    "jax.ops",
)
#: Sample arguments, as tokens the data file can hold: "A" a 2x2 float array, "I" a length-2 int
#: array, "K" a PRNG key, "F" a function (of one argument: it; of more: the first and the last, as
#: ``lax.scan``'s body returns them); anything else is the Python value itself (lists stand for
#: tuples). "F" comes last, so that it only gives a sample to a function no other token fits.
_REQUIRED = ("A", 2, [2, 2], "I", 1.0, "K", "F")
_OPTIONAL = (1, 2, [2, 2], 0)
_MAX_REQUIRED = 4


def value(token: Any) -> Any:
    """A sample argument from its token."""
    import jax
    import jax.numpy as jnp

    if token == "A":
        return jnp.ones((2, 2))
    if token == "I":
        return jnp.array([1, 1])
    if token == "K":
        return jax.random.PRNGKey(0)
    if token == "F":
        return lambda *a: a[0] if len(a) == 1 else (a[0], a[-1])
    if isinstance(token, list):
        return tuple(token)
    return token


def concrete_only(fn: Callable[..., Any], args: dict[str, Any], name: str) -> bool:
    """Does ``fn(**args)`` fail when ``args[name]`` is traced by ``jax.jit``, though it runs under
    ``jax.jit`` with every argument a Python value? Then the failure is the tracer's, whatever JAX
    raises (``lax.full`` of a traced int raises a bare TypeError)."""
    import jax

    try:
        jax.jit(lambda: fn(**{k: value(t) for k, t in args.items()}))()
    except Exception:  # noqa: BLE001 - not a function jit can return from: no verdict
        return False
    return fails_traced(fn, args, name)


def fails_traced(fn: Callable[..., Any], args: dict[str, Any], name: str) -> bool:
    """Does the call fail under ``jax.jit`` with ``args[name]`` traced?"""
    import jax

    def traced(v: Any) -> Any:
        return fn(**{k: value(t) for k, t in args.items() if k != name}, **{name: v})

    try:
        jax.jit(traced)(value(args[name]))
    except Exception:  # noqa: BLE001 - the only difference is the tracer
        return True
    return False


def _succeeds(fn: Callable[..., Any], args: dict[str, Any]) -> bool:
    try:
        fn(**{k: value(t) for k, t in args.items()})
    except Exception:  # noqa: BLE001 - a sample that does not fit: try the next
        return False
    return True


def _functions(module_name: str) -> Iterator[tuple[str, Callable[..., Any]]]:
    module = importlib.import_module(module_name)
    for name in sorted(getattr(module, "__all__", None) or dir(module)):
        fn = getattr(module, name, None)
        if name.startswith("_") or not callable(fn) or isinstance(fn, type):
            continue
        yield f"{module_name}.{name}", fn


def _parameters(fn: Callable[..., Any]) -> list[inspect.Parameter] | None:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.POSITIONAL_ONLY for p in params):
        return (
            None  # passed by keyword below; jnp's positional-only functions are ufuncs (no sinks)
        )
    return [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def derive_function(qual: str, fn: Callable[..., Any]) -> Iterator[dict[str, Any]]:
    params = _parameters(fn)
    if params is None:
        return
    required = [p.name for p in params if p.default is inspect.Parameter.empty]
    if len(required) > _MAX_REQUIRED:
        return
    base = _base(fn, required, [p.name for p in params if p.name not in required])
    if base is None:
        return
    positions = {
        p.name: i for i, p in enumerate(params) if p.kind is not inspect.Parameter.KEYWORD_ONLY
    }
    for p in params:
        candidates = [base[p.name]] if p.name in base else list(_OPTIONAL)
        for token in candidates:
            if not isinstance(token, (int, float, list)) or isinstance(token, bool):
                continue
            args = {**base, p.name: token}
            if p.name not in base and not _succeeds(fn, args):
                continue
            if concrete_only(fn, args, p.name):
                others = [q.name for q in params if q.name not in args and q.kind is q.KEYWORD_ONLY]
                lifts = lifted_by(fn, args, p.name, others)
                row = {"function": qual, "param": p.name, "position": positions.get(p.name)}
                yield {**row, "sample": args, **({"unless": list(lifts)} if lifts else {})}
            break


#: Values tried for a keyword that may lift a parameter's need (``assume_unique_indices=True``).
_LIFTING = (True, 1, 2)


def lifted_by(
    fn: Callable[..., Any], args: dict[str, Any], name: str, others: list[str]
) -> tuple[str, ...]:
    """The keyword-only parameters that, given a value, let ``args[name]`` be traced after all
    (``jnp.repeat``'s ``total_repeat_length``, ``jnp.delete``'s ``assume_unique_indices``: JAX
    spells such modes as keyword-only arguments)."""
    out = []
    for other in others:
        for token in _LIFTING:
            given = {**args, other: token}
            if _succeeds(fn, given) and not fails_traced(fn, given, name):
                out.append(other)
                break
    return tuple(out)


def _base(
    fn: Callable[..., Any], required: list[str], optional: list[str]
) -> dict[str, Any] | None:
    """The first sample call that runs: the required parameters alone, else with one optional
    parameter given too (``lax.scan`` over nothing needs its ``length``)."""
    for combo in itertools.product(_REQUIRED, repeat=len(required)):
        if _succeeds(fn, dict(zip(required, combo))):
            return dict(zip(required, combo))
    for name in optional:
        for combo in itertools.product(_REQUIRED, repeat=len(required)):
            for token in _OPTIONAL:
                args = {**dict(zip(required, combo)), name: token}
                if _succeeds(fn, args):
                    return args
    return None


def derive() -> list[dict[str, Any]]:
    warnings.simplefilter("ignore")
    rows: list[dict[str, Any]] = []
    for module_name in MODULES:
        for qual, fn in _functions(module_name):
            rows.extend(derive_function(qual, fn))
    return rows


def main() -> None:
    import jax

    rows = derive()
    payload = {"jax": jax.__version__, "rows": rows}
    Path(DATA).write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")
    print(f"{len(rows)} rows written to {DATA}", file=sys.stderr)


if __name__ == "__main__":
    main()
