# jaxrewrite: enable
"""A hand-written spec spelled as a sequence JAX takes (range, tuple(...), list(...), a module
constant) is completed with the Static parameters as its literal value would be."""
from functools import partial

import jax
import jax.numpy as jnp
from jaxrewrite import NoDiff, Static

FIRST = (1,)
NAMES = ("n",)


@partial(jax.jit, static_argnums=(1, 2), static_argnames=('n', 'm'))
def a(x, n, m: Static[int]):
    return x * len(range(n)) * len(range(m))


@partial(jax.jit, static_argnums=(1, 2), static_argnames=('n', 'm'))
def b(x, n, m: Static[int]):
    return x * len(range(n)) * len(range(m))


@partial(jax.jit, static_argnames=('n', 'm'), static_argnums=(1, 2))
def c(x, n, m: Static[int]):
    return x * len(range(n)) * len(range(m))


@partial(jax.jit, static_argnums=(1, 2), static_argnames=('n', 'm'))
def d(x, n, m: Static[int]):
    return x * len(range(n)) * len(range(m))


def e(x, n, m: Static[int]):
    return x * len(range(n)) * len(range(m))


e_jit = jax.jit(e, static_argnums=(1, 2), static_argnames=('n', 'm'))


@partial(jax.custom_vjp, nondiff_argnums=(1, 2))
def g(x, n, m: NoDiff[int]):
    return x * len(range(n)) * len(range(m))


def g_fwd(x, n, m):
    return g(x, n, m), None


def g_bwd(n, m, _, ct):
    return (ct * n * m,)


g.defvjp(g_fwd, g_bwd)


def _check():
    for f in (a, b, c, d, e_jit):
        assert float(f(jnp.ones(()), 2, 3)) == 6.0
    assert float(c(jnp.ones(()), n=2, m=3)) == 6.0
    assert float(jax.grad(g)(1.0, 2, 3)) == 6.0


_PLAIN_FAILS = True
