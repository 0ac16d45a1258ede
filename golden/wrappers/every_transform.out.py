# jaxrewrite: enable
"""Every row of the transform table under a wrapper without functools.wraps.

The wrapper's signature is ``(*args, **kwargs)``: nothing can be read from it at run time,
so the spec must come from the source of the innermost def.
"""
from typing import Callable

import jax
import jax.numpy as jnp
from jaxrewrite import NoDiff, Static

TRACES = []


def opaque(func):
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


@__import__('functools').partial(jax.pmap, static_broadcasted_argnums=(1,))
@opaque
def mapped(x, n: Static[int]):
    TRACES.append(("pmap", n))
    return x * len(range(n))


@__import__('functools').partial(jax.custom_vjp, nondiff_argnums=(1,))
@opaque
def clipped(x, f: NoDiff[Callable]):
    return f(x)


def clipped_fwd(x, f):
    return f(x), None


def clipped_bwd(f, res, g):
    return (jnp.clip(g, -1.0, 1.0),)


clipped.defvjp(clipped_fwd, clipped_bwd)


@__import__('functools').partial(jax.checkpoint, static_argnums=(1,))
@opaque
def remat(x, n: Static[int]):
    for _ in range(n):
        x = jnp.sin(x)
    return x


@__import__('functools').partial(jax.vmap, in_axes=(0, None))
@opaque
def batched(x, f: Static[Callable]):
    return f(x)


def _check():
    d = jax.local_device_count()
    assert mapped(jnp.ones(d), 3).tolist() == [3.0] * d
    mapped(jnp.ones(d), 3)
    assert TRACES == [("pmap", 3)]
    assert float(jax.grad(lambda x: clipped(x, lambda v: 10 * v))(1.0)) == 1.0
    assert abs(float(jax.grad(remat)(0.0, 2)) - 1.0) < 1e-6
    assert batched(jnp.zeros(2), jnp.cos).tolist() == [1.0, 1.0]


_PLAIN_FAILS = True
