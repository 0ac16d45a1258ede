# https://github.com/jax-ml/jax/pull/4412 (jit(jnp.sum)(jnp.arange(4), 0): axis traced)
import jax
import jax.numpy as jnp


@jax.jit
def total(x, axis):
    return jnp.sum(x, axis)


def main():
    return total(jnp.arange(4), 0)
