# https://github.com/jax-ml/jax/issues/5208 (grid1: the number of points written as a Python int)
import jax
import jax.numpy as jnp


@jax.jit
def grid1():
    t0, tf, num_steps = 0., 1., 10
    ts = jnp.linspace(t0, tf, num_steps + 1)
    return ts


def main():
    return grid1()
