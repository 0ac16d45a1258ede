# https://github.com/jax-ml/jax/issues/21730 (jax.jit(jnp.linalg.norm)(x, ord=1): ord traced)
import jax
import jax.numpy as jnp


def main():
    a_fun = jax.jit(jnp.linalg.norm)
    return a_fun(jnp.array([1.0, 1.0]), ord=1)
