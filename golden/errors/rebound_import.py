# jaxrewrite: enable
"""The rewritten decorator calls the builtin __import__; this module rebinds that name."""
import jax

from jaxrewrite import Static


def __import__(name, *args, **kwargs):
    raise ImportError(name)


@jax.jit
def f(x, n: Static[int]):
    return x * n
