# jaxrewrite: enable
"""The seed's headline example: pmap at a call site, far from the signature, no argnums by hand."""
from typing import Callable

import jax
import jax.numpy as jnp
from jax import pmap
from jaxrewrite import Static

TRACES = []


def make_hypercube(a, b, c: float, c_func: Static[Callable[[float], float]]):
    TRACES.append(c_func)
    arr = jnp.zeros((3, 3))
    arr += a
    arr *= b
    arr **= c_func(c)  # c_func arrives as the Python function itself
    return arr


pmake_hypercube = pmap(make_hypercube, in_axes=(0, 0, None, None), static_broadcasted_argnums=(3,))


def double(c):
    return c * 2


def _check():
    n = jax.local_device_count()
    assert n >= 2, "run with XLA_FLAGS=--xla_force_host_platform_device_count=4"
    a = jnp.arange(1.0, n + 1)
    out = pmake_hypercube(a, jnp.ones(n), 1.0, double)
    assert out.shape == (n, 3, 3)
    assert float(out[1, 0, 0]) == 4.0  # (2 * 1) ** double(1.0)
    pmake_hypercube(a, jnp.ones(n), 1.0, double)
    assert TRACES == [double]  # static: traced once, no retrace


_PLAIN_FAILS = True
