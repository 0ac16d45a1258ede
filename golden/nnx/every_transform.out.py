# jaxrewrite: enable
"""Every flax.nnx row of the transform table under a wrapper without functools.wraps.

The wrapper's signature is ``(*args, **kwargs)``: nothing can be read from it at run time, so
the spec must come from the source of the innermost def. nnx.jit takes the Static argument by
position and by name; the others by position (NNX binds keywords to positions through the
signature it sees, which here is the wrapper's).
"""
from typing import Callable

import pytest

# The golden tests also run without flax, with flax older than 0.10.1, and where flax.nnx does
# not import (flax 0.10.4 beside jax 0.4.30, a pair its metadata allows): skipped there.
pytest.importorskip("flax", minversion="0.10.1")
try:
    from flax import nnx
except ImportError as err:
    pytest.skip(f"flax.nnx does not import: {err}", allow_module_level=True)

import jax
import jax.numpy as jnp
from jaxrewrite import NoDiff, Static

TRACES = []


def opaque(func):
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


@__import__('functools').partial(nnx.jit, static_argnums=(1,), static_argnames=('n',))
@opaque
def compiled(x, n: Static[int]):
    TRACES.append(("jit", n))
    return x * len(range(n))


@__import__('functools').partial(nnx.remat, static_argnums=(1,))
@opaque
def recomputed(x, n: Static[int]):
    for _ in range(n):
        x = jnp.sin(x)
    return x


@__import__('functools').partial(nnx.vmap, in_axes=(0, None))
@opaque
def batched(x, f: Static[Callable]):
    return f(x)


@__import__('functools').partial(nnx.pmap, static_broadcasted_argnums=(1,))
@opaque
def mapped(x, n: Static[int]):
    TRACES.append(("pmap", n))
    return x * len(range(n))


@__import__('functools').partial(nnx.custom_vjp, nondiff_argnums=(1,))
@opaque
def clipped(x, f: NoDiff[Callable]):
    return f(x)


def clipped_fwd(x, f):
    return f(x), None


def clipped_bwd(f, res, g):
    _, out_g = g  # NNX: (gradients of the inputs' state updates, output gradient)
    return (jnp.clip(out_g, -1.0, 1.0),)


clipped.defvjp(clipped_fwd, clipped_bwd)


def _check():
    assert float(compiled(1.0, 3)) == 3.0
    assert float(compiled(2.0, 3)) == 6.0
    assert float(compiled(1.0, n=2)) == 2.0
    assert abs(float(jax.grad(recomputed)(0.0, 2)) - 1.0) < 1e-6
    assert batched(jnp.zeros(2), jnp.cos).tolist() == [1.0, 1.0]
    d = jax.local_device_count()
    assert mapped(jnp.ones(d), 3).tolist() == [3.0] * d
    mapped(jnp.ones(d), 3)
    assert float(jax.grad(lambda x: clipped(x, lambda v: 10 * v))(1.0)) == 1.0
    assert TRACES == [("jit", 3), ("jit", 2), ("pmap", 3)]


_PLAIN_FAILS = True
