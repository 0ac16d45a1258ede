"""Bare ``Static``: a static parameter of any type.

Accepted by mypy and pyright in their default modes. Their strict modes reject it while
jaxrewrite.markers' TypeVar has no default (see tests/engine/test_markers.py).
"""

from __future__ import annotations

from typing_extensions import reveal_type

from jaxrewrite import Static


def f(x: float, n: Static) -> float:
    reveal_type(n)  # expect: Any
    return x
