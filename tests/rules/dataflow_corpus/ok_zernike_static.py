# https://github.com/PlasmaControl/DESC/pull/998 (dr static for the jit, and jacrev takes only r)
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=3)
def radial(r, l, m, dr):
    if dr == 0:
        return jnp.sum(r ** l * m)
    return jnp.sum(l * r ** (l - 1) * m)


def main():
    r = jnp.linspace(0.1, 1.0, 4)
    return radial(r, 2.0, 1.0, 0)
