# https://github.com/asantini29/phentax/pull/28 (the fix: math.ceil on Python floats, both static)
import math
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(0, 1))
def initial_processing(T, delta_t):
    n = int(math.ceil(T / delta_t))
    return jnp.zeros(3) + n


def main():
    return initial_processing(1.0, 0.1)
