# https://apxml.com/courses/getting-started-with-jax/chapter-2-accelerating-functions-jit/jit-static-vs-traced (the branch as jnp.where)
import jax
import jax.numpy as jnp


def conditional_double(x, threshold):
    return jnp.where(x > threshold, x * 2, x)


def main():
    return jax.jit(conditional_double)(jnp.array(3.0), 1.0)
