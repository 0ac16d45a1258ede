# jaxrewrite: enable
"""Each transform in a stack gets its own spelling of the same Static parameters."""
from functools import partial

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
@__import__('functools').partial(jax.vmap, in_axes=(0, None))
def f(x, n: Static[int]):
    TRACES.append(n)
    return x * len(range(n))


@partial(jax.jit, donate_argnums=(), static_argnums=(1,), static_argnames=('n',))
@__import__('functools').partial(jax.checkpoint, static_argnums=(1,))
def g(x, n: Static[int]):
    return jnp.sin(x) * n


def _check():
    assert f(jnp.ones(3), 2).tolist() == [2.0, 2.0, 2.0]
    f(jnp.ones(3), 2)
    assert TRACES == [2]
    assert abs(float(jax.grad(g)(0.0, 3)) - 3.0) < 1e-6


_PLAIN_FAILS = True
