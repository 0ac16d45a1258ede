# jaxrewrite: enable
"""Multi-line keyword values: replaced on the same lines, comments kept on their lines."""
from functools import partial

import jax
from jaxrewrite import Static


@partial(jax.jit,
         static_argnames=  # the size
                          ('m', 'k', 'n'),  # the count
         donate_argnums=(), static_argnums=(1, 2, 3))
def f(x, m, k, n: Static[int]):
    return x * len(range(m + k + n))


@partial(jax.jit, static_argnames=["m", "n"], static_argnums=[1, 2])
def already_complete(x, m, n: Static[int]):
    return x * len(range(m + n))


@partial(jax.jit, static_argnums=(1,), static_argnames=('n',),)
def trailing_comma(x, n: Static[int]):
    return x * len(range(n))


def _check():
    assert float(f(1.0, 1, 2, 3)) == 6.0
    assert float(f(1.0, m=1, k=2, n=3)) == 6.0
    assert float(already_complete(1.0, 1, 2)) == 3.0
    assert float(trailing_comma(1.0, n=2)) == 2.0
