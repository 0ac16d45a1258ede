# https://github.com/google/flax/issues/4146 (if cond, with cond traced)
import jax
import jax.numpy as jnp


@jax.jit
def f(x, cond):
    if cond:
        return x
    else:
        return x + 1


def main():
    return f(jnp.array(1), jnp.array(True))
