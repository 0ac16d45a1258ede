# jaxrewrite: enable
"""NNX's graph nodes: positions count ``self`` and every Module argument, as nnx.jit passes them
all to jax.jit; the Modules themselves stay traced, only the marked parameters become static. Where a Module must not be mapped, in_axes is written by hand and
jaxrewrite checks only its Static entries."""
from functools import partial

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
from jaxrewrite import Static

TRACES = []


class Scale(nnx.Module):
    def __init__(self, w):
        self.w = nnx.Param(jnp.full(2, w))

    @__import__('functools').partial(nnx.jit, static_argnums=(2,), static_argnames=('times',))
    def __call__(self, x, times: Static[int]):
        TRACES.append(("call", times))
        for _ in range(times):
            x = x * self.w[...]
        return x


@__import__('functools').partial(nnx.jit, static_argnums=(2,), static_argnames=('times',))
def apply(model: Scale, x, times: Static[int]):
    TRACES.append(("apply", times))
    for _ in range(times):
        x = x * model.w[...]
    return x


@partial(nnx.vmap, in_axes=(None, 0, None))
def per_row(model: Scale, x, times: Static[int]):
    TRACES.append(("per_row", times))
    return x * model.w[...] * len(range(times))


@__import__('functools').partial(nnx.remat, static_argnums=(2,))
def recomputed(model: Scale, x, times: Static[int]):
    for _ in range(times):
        x = jnp.sin(x * model.w[...])
    return x.sum()


def _check():
    two, three = Scale(2.0), Scale(3.0)
    x = jnp.ones(2)
    assert two(x, 3).tolist() == [8.0, 8.0]
    assert three(x, 3).tolist() == [27.0, 27.0]  # another Module of the same structure: no new trace
    assert two(x, times=1).tolist() == [2.0, 2.0]
    assert apply(two, x, 2).tolist() == [4.0, 4.0]
    assert apply(three, x, 2).tolist() == [9.0, 9.0]
    assert apply(two, x, times=2).tolist() == [4.0, 4.0]
    # The Modules were traced, not static (static Modules would have traced once per instance).
    assert TRACES == [("call", 3), ("call", 1), ("apply", 2), ("apply", 2)]
    assert per_row(two, jnp.ones((3, 2)), 2).tolist() == [[4.0, 4.0]] * 3
    grads = nnx.grad(lambda m: recomputed(m, x, 2))(two)
    assert [leaf.shape for leaf in jax.tree.leaves(grads)] == [(2,)]


_PLAIN_FAILS = True
