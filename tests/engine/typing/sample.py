# pyright: strict
"""Type checkers must see through the markers: ``Static[int]`` is ``int``.

Checked by tests/engine/test_markers.py with ``mypy --strict`` and strict pyright; never imported
by pytest (the file name does not start with ``test_``). Each ``reveal_type`` is read back
from the checker's output.
"""

from __future__ import annotations

from typing import Any, Callable

from typing_extensions import Annotated, assert_type, reveal_type

import jaxrewrite
from jaxrewrite import STATIC, NoDiff, Static

S = Static[Any]


def make_hypercube(
    a: float,
    b: float,
    c: NoDiff[float],
    c_func: Static[Callable[[float], float]],
    n: Static[int],
    opts: S,
    tag: jaxrewrite.Static[str],
    long: Annotated[int, STATIC],
) -> float:
    assert_type(c, float)
    assert_type(c_func, Callable[[float], float])
    assert_type(n, int)
    assert_type(tag, str)
    assert_type(long, int)
    reveal_type(n)  # expect: int
    reveal_type(c)  # expect: float
    reveal_type(opts)  # expect: Any
    return a * b * c_func(c) * n


result: float = make_hypercube(1.0, 2.0, 3.0, lambda x: x, 4, object(), "t", 5)
