# jaxrewrite: enable
"""jax.experimental.pjit.pjit takes the same static keywords as jit."""
import warnings

import jax
from jaxrewrite import Static

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from jax.experimental.pjit import pjit


@__import__('functools').partial(pjit, static_argnums=(1,), static_argnames=('n',))
def f(x, n: Static[int]):
    return x * len(range(n))


def _check():
    assert float(f(1.0, 3)) == 3.0
    assert float(f(1.0, n=2)) == 2.0


_PLAIN_FAILS = True
