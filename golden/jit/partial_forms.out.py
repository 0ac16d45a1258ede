# jaxrewrite: enable
"""functools.partial spelled three ways; the user's own keywords are kept and completed."""
import functools
import functools as ft
from functools import partial

import jax
import jax.numpy as jnp
from jaxrewrite import Static


@partial(jax.jit, donate_argnums=0, static_argnums=(1,), static_argnames=('n',))
def a(x, n: Static[int]):
    return x * len(range(n))


@functools.partial(jax.jit, inline=True, static_argnums=(1,), static_argnames=('n',))
def b(x, n: Static[int]):
    return x * len(range(n))


@ft.partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
def c(x, n: Static[int]):
    return x * len(range(n))


@partial(
    jax.jit,
    # a comment line inside the call stays where it is
    keep_unused=True, static_argnums=(1,), static_argnames=('n',),
)
def d(x, n: Static[int]):
    return x * len(range(n))


def _check():
    assert float(a(jnp.ones(()), 2)) == 2.0
    assert float(b(1.0, 3)) == 3.0
    assert float(c(1.0, 4)) == 4.0
    assert float(d(1.0, 5)) == 5.0


_PLAIN_FAILS = True
