# https://github.com/jax-ml/jax/issues/4416 (the function marked static)
import jax.numpy as jnp
from jax import jit


def apply(fn, x):
    return fn(x) + 1


def main():
    return jit(apply, static_argnums=0)(jnp.sin, jnp.ones(3))
