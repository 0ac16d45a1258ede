# jaxrewrite: enable
"""Findings per use: the marked def itself, under JAX functions that trace its arguments."""
import jax

from jaxrewrite import Static


def tile(x, n: Static[int]):
    return jax.numpy.tile(x, n)


fast = jax.jit(tile)  # applied here
shapes = jax.eval_shape(tile, jax.numpy.ones(2), 3)  # but traced here
fine = jax.eval_shape(fast, jax.numpy.ones(2), 3)  # the jitted one reads its markers
carry = jax.lax.scan(lambda c, x: (c, x), 0, None, length=2)


@jax.jit
def decorated(x, n: Static[int]):
    return jax.numpy.tile(x, n)


also_fine = jax.eval_shape(decorated, jax.numpy.ones(2), 3)
