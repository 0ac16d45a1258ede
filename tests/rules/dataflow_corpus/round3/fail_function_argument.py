# https://github.com/jax-ml/jax/issues/4416 (a function passed where jit traces: not a valid JAX type)
import jax.numpy as jnp
from jax import jit


def apply(fn, x):
    return fn(x) + 1


def main():
    return jit(apply)(jnp.sin, jnp.ones(3))
