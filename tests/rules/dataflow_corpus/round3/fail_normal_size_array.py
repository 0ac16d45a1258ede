# https://github.com/aesara-devs/aesara/issues/702 (jax.random.normal's shape from an array argument under jit)
import jax
import jax.numpy as jnp


def random_variable(prng, size):
    return jax.random.normal(key=prng, shape=size)


def main():
    return jax.jit(random_variable)(jax.random.PRNGKey(0), jnp.array([10]))
