# https://apxml.com/courses/getting-started-with-jax/chapter-2-accelerating-functions-jit/jit-common-pitfalls (if x > 0 under jax.jit)
import jax
import jax.numpy as jnp


def condition_on_value(x):
    if x > 0:
        return x * 2
    else:
        return x / 2


def main():
    jitted_condition = jax.jit(condition_on_value)
    return jitted_condition(jnp.array(5.0))
