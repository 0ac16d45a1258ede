# https://github.com/asantini29/phentax/pull/28 (int(jnp.ceil(T / delta_t)) on traced arguments)
import jax
import jax.numpy as jnp


@jax.jit
def initial_processing(T, delta_t):
    n = int(jnp.ceil(T / delta_t))
    return jnp.zeros(3) + n


def main():
    return initial_processing(1.0, 0.1)
