# jaxrewrite: enable
"""Transforms nested more than one level deep: every level applies to the def's own arguments,
so each one gets the def's statics, whatever the mix and wherever the call is written."""
from functools import partial

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


def loss(x, n: Static[int]):
    TRACES.append(n)
    y = x
    for _ in range(n - 1):
        y = y * x
    return y.sum()


grads = jax.jit(jax.vmap(jax.grad(loss), in_axes=(0, None)), static_argnums=(1,), static_argnames=('n',))
values = partial(jax.jit, inline=True)(jax.vmap(jax.value_and_grad(loss), (0, None)), static_argnums=(1,), static_argnames=('n',))
remat = jax.jit(jax.checkpoint(jax.vmap(jax.grad(loss), in_axes=(0, None)), static_argnums=(1,)), static_argnums=(1,), static_argnames=('n',))
four = jax.jit(jax.vmap(jax.vmap(jax.grad(loss), in_axes=(0, None)), in_axes=(0, None)), static_argnums=(1,), static_argnames=('n',))


def uses(helper):
    def decorate(fn):
        fn.helper = helper
        return fn

    return decorate


@uses(jax.jit(jax.vmap(jax.grad(loss), in_axes=(0, None)), static_argnums=(1,), static_argnames=('n',)))
def step(xb):
    return step.helper(xb, 3)


def _traces(f, *args):
    before = len(TRACES)
    first = f(*args)
    f(*args)
    return first, len(TRACES) - before


def _check():
    xb = jnp.arange(6.0).reshape(3, 2)
    by_hand = [
        (grads, jax.jit(jax.vmap(jax.grad(loss), in_axes=(0, None)), static_argnums=(1,), static_argnames=("n",))),
        (values, jax.jit(jax.vmap(jax.value_and_grad(loss), (0, None)), inline=True, static_argnums=(1,), static_argnames=("n",))),
        (remat, jax.jit(jax.checkpoint(jax.vmap(jax.grad(loss), in_axes=(0, None)), static_argnums=(1,)), static_argnums=(1,), static_argnames=("n",))),
    ]
    for rewritten, hand in by_hand:
        got, count = _traces(rewritten, xb, 3)
        want, hand_count = _traces(hand, xb, 3)
        assert jax.tree_util.tree_all(jax.tree_util.tree_map(jnp.allclose, got, want))
        assert count == hand_count, (count, hand_count)
    got, count = _traces(four, xb[None], 3)
    assert jnp.allclose(got[0], 3 * xb**2) and count == 1
    assert jnp.allclose(step(xb), 3 * xb**2)
    assert jnp.allclose(grads(xb, 2), 2 * xb)


_PLAIN_FAILS = True
