# https://github.com/jax-ml/jax/pull/16430 (dbelenko: `z = nullable_value or default_value` on a traced value)
import jax
import jax.numpy as jnp


@jax.jit
def scaled(x, scale=None):
    s = scale or 1.0
    return x * s


def main():
    return scaled(jnp.ones(3), 2.0)
