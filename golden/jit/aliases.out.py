# jaxrewrite: enable
"""Module-level aliases of jit, partial or plain, and aliases of aliases."""
from functools import partial

import jax
import jax.numpy as jnp
from jaxrewrite import Static

my_jit = partial(jax.jit, donate_argnums=0)
plain = jax.jit
named = partial(jax.jit, static_argnames=("m",))
again = partial(named, inline=True)


@__import__('functools').partial(my_jit, static_argnums=(1,), static_argnames=('n',))
def a(x, n: Static[int]):
    return x * len(range(n))


@__import__('functools').partial(plain, static_argnums=(1,), static_argnames=('n',))
def b(x, n: Static[int]):
    return x * len(range(n))


@__import__('functools').partial(named, static_argnums=(1, 2), static_argnames=('m', 'n'))
def c(x, m, n: Static[int]):
    return x * len(range(m + n))


@__import__('functools').partial(again, static_argnums=(1, 2), static_argnames=('m', 'n'))
def d(x, m, n: Static[int]):
    return x * len(range(m + n))


@partial(named, donate_argnums=0, static_argnums=(1, 2), static_argnames=('m', 'n'))
def e(x, m, n: Static[int]):
    return x * len(range(m + n))


def _check():
    assert float(a(jnp.ones(()), 2)) == 2.0
    assert float(b(1.0, 3)) == 3.0
    assert float(c(1.0, 1, 3)) == 4.0
    assert float(d(1.0, 2, 3)) == 5.0
    assert float(e(jnp.ones(()), 3, 3)) == 6.0


_PLAIN_FAILS = True
