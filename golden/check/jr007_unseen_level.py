# jaxrewrite: enable
"""A transform over something made from a marked def that jaxrewrite cannot see through: which
parameters it receives cannot be told, so its statics are not written; check says so."""
from functools import partial

import jax
from jaxrewrite import Static


def loss(x, n: Static[int]):
    return x * n


bound = jax.jit(jax.vmap(partial(loss, 2.0)))
scaled = partial(loss, 2.0)
later = jax.vmap(scaled)
