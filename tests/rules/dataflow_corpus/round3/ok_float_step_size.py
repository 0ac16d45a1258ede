# https://github.com/blackjax-devs/blackjax/issues/1029 (the step size kept an array: jnp.maximum, no float())
import math

import jax
import jax.numpy as jnp


def apply_length_floor(trajectory_length, step_size):
    return jnp.maximum(trajectory_length, 2 * step_size)


@jax.jit
def run(log_step_size, trajectory_length):
    step_size_ma = jnp.exp(log_step_size)
    floor = apply_length_floor(math.pi, step_size_ma)
    return trajectory_length * floor


def main():
    return run(jnp.array(-1.0), jnp.array(2.0))
