# https://github.com/jax-ml/jax/issues/21730 (ord static)
import jax
import jax.numpy as jnp


def main():
    a_fun = jax.jit(jnp.linalg.norm, static_argnames="ord")
    return a_fun(jnp.array([1.0, 1.0]), ord=1)
