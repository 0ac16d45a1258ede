# jaxrewrite: enable
"""Functions without Static parameters keep every byte, even under jit."""
from functools import partial

import jax
from jaxrewrite import Static


@jax.jit
def plain(x, n):
    return x * n


@partial(jax.jit, static_argnums=(1,))
def by_hand(x, n):
    return x * len(range(n))


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
def marked(x, n: Static[int]):
    return x * len(range(n))


def _check():
    assert float(plain(2.0, 3.0)) == 6.0
    assert float(by_hand(2.0, 3)) == 6.0
    assert float(marked(2.0, 3)) == 6.0
