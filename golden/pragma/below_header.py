"""The pragma must come before the first statement; this one is too late."""
import jax
from jaxrewrite import Static

# jaxrewrite: enable


@jax.jit
def f(x, n: Static[int]):
    return x
