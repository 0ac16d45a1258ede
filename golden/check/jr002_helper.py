# jaxrewrite: enable
"""The JAX maintainers' question: Static on a helper that no transform applies to does nothing."""
import jax

from jaxrewrite import Static


def g(x, square: Static[bool]):
    return x * x if square else x


@jax.jit
def f(x, square):
    return g(x, square)


def applied_later(x, n: Static[int]):
    return x * n


fast = jax.jit(applied_later)  # a call site counts: no finding for applied_later
