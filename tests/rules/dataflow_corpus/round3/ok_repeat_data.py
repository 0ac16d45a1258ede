# https://github.com/data-apis/array-api/pull/690 (the documented way: total_repeat_length)
import jax
import jax.numpy as jnp


def func(x):
    return jnp.repeat(x, x[2], total_repeat_length=x.size * 2)


def main():
    return jax.jit(func)(jnp.arange(3))
