"""
# jaxrewrite: enable
A pragma inside the docstring is text, not a comment.
"""
import jax
from jaxrewrite import Static


@jax.jit
def f(x, n: Static[int]):
    return x
