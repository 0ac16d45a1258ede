# jaxrewrite: enable
"""Per-leaf statics reached through the spellings that keep the container as it is (a generic
container, Python 3.11 and newer, is in tests/test_leaf_types.py)."""
import typing as t
from typing import Annotated, NamedTuple, Optional, TypedDict, Union

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


class Cfg(TypedDict):
    x: jax.Array
    n: Static[int]


class Pair(NamedTuple):
    x: jax.Array
    n: Static[int]


Alias = Cfg
Maybe = Optional[Pair]


@jax.jit
def optional(c: Optional[Cfg]):
    TRACES.append(None if c is None else c["n"])
    return 0.0 if c is None else c["x"] * c["n"]


@jax.jit
def union(c: Union[Cfg, None], d: "Cfg | None" = None):
    return c["x"] * c["n"]


@jax.jit
def annotated(c: Annotated[Cfg, "doc"], d: t.Optional[Alias]):
    return c["x"] * c["n"] + d["x"] * d["n"]


@jax.jit
def aliased(p: "Maybe"):
    TRACES.append(p.n)
    return p.x * p.n


def _check():
    x = jnp.float32(2.0)
    assert float(optional(None)) == 0.0
    assert float(optional({"x": x, "n": 3})) == 6.0
    assert float(optional({"x": x + 1, "n": 3})) == 9.0
    assert float(optional(None)) == 0.0
    assert TRACES == [None, 3]
    assert float(union({"x": x, "n": 2})) == 4.0
    assert float(annotated({"x": x, "n": 2}, {"x": x, "n": 1})) == 6.0
    assert float(aliased(Pair(x, 4))) == 8.0
    assert float(aliased(Pair(x + 1, 4))) == 12.0
    assert TRACES == [None, 3, 4]


_PLAIN_FAILS = True
