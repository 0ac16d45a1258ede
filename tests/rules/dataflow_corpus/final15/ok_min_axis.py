# https://jax.readthedocs.io/en/latest/errors.html (the page's fix: static_argnums=1)
from functools import partial

import jax.numpy as jnp
from jax import jit


@partial(jit, static_argnums=1)
def func(x, axis):
    return x.min(axis)


def main():
    return func(jnp.arange(4), 0)
