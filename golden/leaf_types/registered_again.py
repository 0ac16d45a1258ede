# jaxrewrite: enable
"""A class bound again to its own registration: both bindings are the one class."""
import dataclasses

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


@dataclasses.dataclass
class Later:
    x: jax.Array
    n: Static[int]


Later = jax.tree_util.register_dataclass(Later)


@dataclasses.dataclass
class Given:
    x: jax.Array
    n: Static[int]


Given = jax.tree_util.register_dataclass(Given, data_fields=["x"])


@jax.jit
def f(a, b):
    TRACES.append((a.n, b.n))
    return a.x * a.n + b.x * b.n


def _check():
    x = jnp.float32(1.0)
    assert float(f(Later(x, 2), Given(x, 3))) == 5.0
    assert float(f(Later(x + 1, 2), Given(x, 3))) == 7.0
    assert TRACES == [(2, 3)]


_PLAIN_FAILS = True
