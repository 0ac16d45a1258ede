# https://github.com/jax-ml/jax/pull/6501 (the PR's fix, size static, by name as today's JAX takes it)
import jax.numpy as jnp
from jax import jit


def main():
    x = jnp.array([0, 1, 1, 0, 0, 1])
    return jit(jnp.nonzero, static_argnames="size")(x, size=3)
