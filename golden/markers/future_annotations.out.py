"""Docstring first, then the pragma, then the future import: all still header."""
# jaxrewrite: enable
from __future__ import annotations

import jax
from jaxrewrite import Static


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
def f(x, n: Static[int]):
    return x * len(range(n))


def _check():
    assert float(f(1.0, 4)) == 4.0


_PLAIN_FAILS = True
