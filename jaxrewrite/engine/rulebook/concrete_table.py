"""Library parameters JAX needs as Python values, derived from JAX itself.

The rows live in ``concrete_params.json`` beside this file, written by ``tools/derive_concrete.py``
(a maintainer's tool, which probes JAX); reading them imports no JAX.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("concrete_params.json")


@cache
def rows() -> tuple[dict[str, Any], ...]:
    """One parameter of one function that must be concrete, the call that showed it (``sample``)
    and the keywords that let it be traced after all (``unless``)."""
    return tuple(json.loads(DATA.read_text())["rows"])


@cache
def by_function() -> dict[str, tuple[tuple[int | None, str], ...]]:
    """Qualified name -> (position, keyword) of each parameter that must be a Python value."""
    out: dict[str, list[tuple[int | None, str]]] = {}
    for r in rows():
        out.setdefault(r["function"], []).append((r["position"], r["param"]))
    return {k: tuple(v) for k, v in out.items()}


@cache
def lifting() -> dict[tuple[str, str], tuple[str, ...]]:
    """(qualified name, parameter) -> the keywords whose presence lets the parameter be traced."""
    return {(r["function"], r["param"]): tuple(r["unless"]) for r in rows() if r.get("unless")}
