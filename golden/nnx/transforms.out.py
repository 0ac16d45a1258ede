# jaxrewrite: enable
"""Each flax.nnx row on a plain def, called by position and, where NNX allows it, by keyword.

Where NNX differs from JAX: nnx.vmap and nnx.remat bind keyword arguments to their positions
through the function's signature before mapping, so a Static parameter passed by name still
meets its ``None`` axis (jax.vmap would map it over axis 0); nnx.pmap takes positional arguments
only; nnx.custom_vjp's bwd receives the nondiff arguments first, as JAX's does, and the output
gradient paired with the gradients of the inputs' state updates.
"""
from functools import partial
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


@__import__('functools').partial(nnx.remat, static_argnums=(1,))
def recomputed(x, n: Static[int]):
    for _ in range(n):
        x = jnp.sin(x)
    return x


@__import__('functools').partial(nnx.vmap, in_axes=(0, None))
def tiled(x, n: Static[int]):
    return jnp.full(n, x)


@partial(nnx.vmap, in_axes=(1, None))
def columns(x, n: Static[int]):
    return x * len(range(n))


@partial(nnx.pmap, axis_name="i", static_broadcasted_argnums=(1,))
def summed(x, n: Static[int]):
    TRACES.append(("pmap", n))
    return jax.lax.psum(x, "i") * len(range(n))


class Gain(nnx.Module):
    def __init__(self):
        self.w = nnx.Param(jnp.array(3.0))


@__import__('functools').partial(nnx.custom_vjp, nondiff_argnums=(2, 3))
def scaled(model: Gain, x, power: Static[int], f: NoDiff[Callable]):
    return f(model.w[...] * x**power)


def scaled_fwd(model, x, power, f):
    return scaled(model, x, power, f), (model.w[...], x)


def scaled_bwd(power, f, res, g):
    w, x = res
    updates_g, out_g = g
    model_g = jax.tree.map(lambda _: out_g * x**power, updates_g[0])  # the Module's only leaf is w
    return model_g, out_g * w * power * x ** (power - 1)


scaled.defvjp(scaled_fwd, scaled_bwd)


def _check():
    assert abs(float(jax.grad(recomputed)(0.0, 2)) - 1.0) < 1e-6
    assert abs(float(jax.grad(lambda x: recomputed(x, n=2))(0.0)) - 1.0) < 1e-6
    assert tiled(jnp.ones(3), 2).shape == (3, 2)
    assert tiled(jnp.ones(3), n=4).shape == (3, 4)  # NNX: the keyword meets its None axis
    assert columns(jnp.ones((2, 3)), 2).shape == (3, 2)
    d = jax.local_device_count()
    assert summed(jnp.ones(d), 2).tolist() == [2.0 * d] * d
    summed(jnp.ones(d), 2)
    assert TRACES == [("pmap", 2)]
    model = Gain()
    assert float(scaled(model, 2.0, 2, jnp.negative)) == -12.0
    model_g, x_g = nnx.grad(lambda m, x: scaled(m, x, 2, jnp.abs), argnums=(0, 1))(model, 2.0)
    assert [float(w_g) for w_g in jax.tree.leaves(model_g)] == [4.0] and float(x_g) == 12.0


_PLAIN_FAILS = True
