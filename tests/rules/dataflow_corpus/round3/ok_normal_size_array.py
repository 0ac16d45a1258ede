# https://github.com/aesara-devs/aesara/issues/702 (the size a static tuple, as #1284 passes it)
import jax


def random_variable(prng, size):
    return jax.random.normal(key=prng, shape=size)


def main():
    return jax.jit(random_variable, static_argnums=1)(jax.random.PRNGKey(0), (10,))
