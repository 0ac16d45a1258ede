"""The pragma is there, but below the first statement: it does not count."""
import jax

# jaxrewrite: enable
from jaxrewrite import Static


@jax.jit
def scale(x, n: Static[int]):
    return x * len(range(n))
