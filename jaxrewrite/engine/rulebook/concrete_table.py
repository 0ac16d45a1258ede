"""Library parameters JAX needs as Python values, as derived from JAX (``concrete_derive``).

The rows live in ``concrete_params.json`` beside this file; reading them imports no JAX.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("concrete_params.json")


@dataclass(frozen=True)
class Row:
    """One parameter of one function that must be concrete, and the call that showed it."""

    function: str
    param: str
    position: int | None
    sample: dict[str, Any]
    #: Keywords that, when a call passes them, let the parameter be traced after all.
    unless: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "function": self.function,
            "param": self.param,
            "position": self.position,
        }
        out["sample"] = self.sample
        return {**out, "unless": list(self.unless)} if self.unless else out


@cache
def rows() -> tuple[Row, ...]:
    payload = json.loads(DATA.read_text())
    return tuple(
        Row(r["function"], r["param"], r["position"], r["sample"], tuple(r.get("unless", ())))
        for r in payload["rows"]
    )


@cache
def by_function() -> dict[str, tuple[tuple[int | None, str], ...]]:
    """Qualified name -> (position, keyword) of each parameter that must be a Python value."""
    out: dict[str, list[tuple[int | None, str]]] = {}
    for r in rows():
        out.setdefault(r.function, []).append((r.position, r.param))
    return {k: tuple(v) for k, v in out.items()}


@cache
def lifting() -> dict[tuple[str, str], tuple[str, ...]]:
    """(qualified name, parameter) -> the keywords whose presence lets the parameter be traced."""
    return {(r.function, r.param): r.unless for r in rows() if r.unless}
