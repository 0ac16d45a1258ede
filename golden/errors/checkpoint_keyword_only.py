# jaxrewrite: enable
"""A keyword-only Static under checkpoint: JAX's static_argnames there leaves it traced."""
import jax
from jaxrewrite import Static


@jax.checkpoint
def f(x, *, n: Static[int]):
    return x * n
