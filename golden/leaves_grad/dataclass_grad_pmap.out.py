# jaxrewrite: enable
"""A registered dataclass keeps its Static fields in the tree structure: under grad they are
absent from the gradient's leaves (kept as the same Python value in its structure), under pmap
they are static. Nothing per-leaf is written: only register_dataclass's keywords."""
import dataclasses

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


@__import__('functools').partial(jax.tree_util.register_dataclass, data_fields=('w',), meta_fields=('steps',))
@dataclasses.dataclass(frozen=True)
class Params:
    w: jax.Array
    steps: Static[int]


@jax.grad
def loss(p: Params, x):
    out = x
    for _ in range(p.steps):
        out = out * p.w
    return out.sum()


@jax.pmap
def mapped(p: Params, x):
    TRACES.append(p.steps)
    return x * p.w * p.steps


def _check():
    g = loss(Params(jnp.array([2.0]), 3), jnp.array([1.0]))
    assert isinstance(g, Params) and g.steps == 3 and jnp.allclose(g.w, 12.0)
    n = jax.local_device_count()
    out = mapped(Params(jnp.ones(n), 2), jnp.arange(float(n)))
    mapped(Params(jnp.zeros(n), 2), jnp.arange(float(n)))
    assert jnp.allclose(out, 2.0 * jnp.arange(float(n))) and TRACES == [2]


_PLAIN_FAILS = True
