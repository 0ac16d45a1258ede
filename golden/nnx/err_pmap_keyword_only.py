# jaxrewrite: enable
"""nnx.pmap, like jax.pmap, takes static arguments by position only."""
from flax import nnx
from jaxrewrite import Static


@nnx.pmap
def f(x, *, n: Static[int]):
    return x * n
