# https://github.com/asantini29/phentax/pull/28 (assert jnp.all(...) on a traced spin)
import jax
import jax.numpy as jnp


@jax.jit
def spins(chi1):
    assert jnp.all(jnp.abs(chi1) <= 1.0)
    return chi1 * 2


def main():
    return spins(jnp.array([0.1, 0.2]))
