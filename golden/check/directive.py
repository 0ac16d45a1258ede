# jaxrewrite: enabled
"""A typo in the directive: the module does not opt in, and both facts are reported."""
import jax

from jaxrewrite import Static


@jax.jit
def f(x, n: Static[int]):
    return x
