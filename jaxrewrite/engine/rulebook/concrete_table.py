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

    def as_json(self) -> dict[str, Any]:
        return {"function": self.function, "param": self.param, "position": self.position, "sample": self.sample}


@cache
def rows() -> tuple[Row, ...]:
    payload = json.loads(DATA.read_text())
    return tuple(Row(r["function"], r["param"], r["position"], r["sample"]) for r in payload["rows"])


@cache
def by_function() -> dict[str, tuple[tuple[int | None, str], ...]]:
    """Qualified name -> (position, keyword) of each parameter that must be a Python value."""
    out: dict[str, list[tuple[int | None, str]]] = {}
    for r in rows():
        out.setdefault(r.function, []).append((r.position, r.param))
    return {k: tuple(v) for k, v in out.items()}
