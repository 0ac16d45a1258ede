# https://github.com/jax-ml/jax/pull/6501 (jit(jnp.nonzero) with the size traced; size is keyword-only in today's JAX)
import jax.numpy as jnp
from jax import jit


def main():
    x = jnp.array([0, 1, 1, 0, 0, 1])
    return jit(jnp.nonzero)(x, size=3)
