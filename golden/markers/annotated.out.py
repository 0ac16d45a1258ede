# jaxrewrite: enable
"""``Annotated[T, jaxrewrite.STATIC]`` from typing or typing_extensions, and flattening."""
import typing

import jax
import jaxrewrite
import typing_extensions
from jaxrewrite import STATIC, Static
from typing import Annotated


@__import__('functools').partial(jax.jit, static_argnums=(1, 2, 3, 4), static_argnames=('a', 'b', 'c', 'd'))
def f(x, a: Annotated[int, jaxrewrite.STATIC], b: typing.Annotated[int, "doc", STATIC],
      c: typing_extensions.Annotated[int, STATIC], d: Annotated[Static[int], "doc"], e: Annotated[int, "doc"]):
    return x * len(range(a + b + c + d)) + e


def _check():
    assert float(f(1.0, 1, 1, 1, 1, 3.0)) == 7.0


_PLAIN_FAILS = True
