# jaxrewrite: enable
"""Module-level aliases of markers, as the seed suggests: ``S = Static[Any]``."""
from typing import Any, TypeVar

import jax
from jaxrewrite import Static

T = TypeVar("T")
S = Static[Any]
SInt = Static[int]
Generic = Static[T]
Again = S


@__import__('functools').partial(jax.jit, static_argnums=(1, 2, 3, 4), static_argnames=('a', 'b', 'c', 'd'))
def f(x, a: S, b: SInt, c: Generic[int], d: Again):
    return x * len(range(a + b + c + d))


def _check():
    assert float(f(1.0, 1, 2, 3, 4)) == 10.0


_PLAIN_FAILS = True
