# jaxrewrite: enable
"""A form feed (a PEP 8 page break) must not shift anything after it."""
import jax
from jaxrewrite import Static


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))  #  in a comment too
def f(x, n: Static[int]):
    return x * len(range(n))


def _check():
    assert float(f(1.0, 3)) == 3.0


_PLAIN_FAILS = True
