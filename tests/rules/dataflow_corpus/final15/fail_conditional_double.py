# https://apxml.com/courses/getting-started-with-jax/chapter-2-accelerating-functions-jit/jit-static-vs-traced (if x > threshold under jit)
import jax
import jax.numpy as jnp


def conditional_double(x, threshold):
    if x > threshold:
        return x * 2
    else:
        return x


def main():
    return jax.jit(conditional_double)(jnp.array(3.0), 1.0)
