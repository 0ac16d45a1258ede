# jaxrewrite: enable
"""The same wrapper as a decorator under the transform: refused as at a call site."""
import jax
from jaxrewrite import Static


def with_scale(fn):
    return lambda scale, *args, **kwargs: scale * fn(*args, **kwargs)


@jax.jit
@with_scale
def body(x, n: Static[int]):
    return x * len(range(n))
