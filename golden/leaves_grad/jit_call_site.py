# jaxrewrite: enable
"""Per-leaf statics at jit call sites: ``fast = jax.jit(fun)``, with the call's own keywords."""
from typing import Callable, NamedTuple, TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


class Config(TypedDict):
    x: jax.Array
    steps: Static[int]
    act: Static[Callable[[jax.Array], jax.Array]]


class Pair(NamedTuple):
    a: jax.Array
    op: Static[str]


def fun(cfg: Config, pair: Pair, k):
    TRACES.append((cfg["steps"], pair.op))
    out = cfg["x"] * k
    for _ in range(cfg["steps"]):
        out = cfg["act"](out)
    return out + pair.a if pair.op == "add" else out * pair.a


fast = jax.jit(fun, donate_argnums=())


def _check():
    cfg = {"x": jnp.ones(2), "steps": 2, "act": jnp.tanh}
    pair = Pair(jnp.ones(2), "add")
    assert jnp.allclose(fast(cfg, pair, 1.0), jnp.tanh(jnp.tanh(1.0)) + 1.0)
    fast({**cfg, "x": jnp.zeros(2)}, pair._replace(a=jnp.zeros(2)), 2.0)
    assert TRACES == [(2, "add")]
    fast(cfg, pair=pair._replace(op="mul"), k=1.0)
    assert TRACES == [(2, "add"), (2, "mul")]


_PLAIN_FAILS = True
