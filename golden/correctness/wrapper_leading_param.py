# jaxrewrite: enable
"""A wrapper of this module whose function takes a parameter of its own: the def's positions
are not the wrapped function's, so writing them would make the wrong argument static."""
import jax
from jaxrewrite import Static


def with_scale(fn):
    def scaled(scale, *args, **kwargs):
        return scale * fn(*args, **kwargs)

    return scaled


def body(x, n: Static[int]):
    return x * len(range(n))


scaled = jax.jit(with_scale(body))
