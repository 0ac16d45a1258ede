# https://github.com/jax-ml/jax/pull/39508 (from #7222: x[i:i+2] with i traced under jit)
import jax
import jax.numpy as jnp


@jax.jit
def window(x, i):
    return x[i : i + 2]


def main():
    return window(jnp.arange(6), 1)
