# jaxrewrite: enable
"""JR016: a Static float under jit recompiles per value; a Static int, a float under grad's
NoDiff, or a def no transform hashes are not reported."""

import functools

import jax
import jax.numpy as jnp

from jaxrewrite import NoDiff, Static


@jax.jit
def step(x, lr: Static[float], n: Static[int]):
    return x - lr * n


@functools.partial(jax.jit, donate_argnums=0)
def scaled(x, scale: Static[float] = 1.0):
    return x * scale


def decay(x, rate: Static[float]):
    return x * rate


decayed = jax.vmap(decay, in_axes=(0, None))


def loss(x, weight: NoDiff[float]):
    return jnp.sum(x) * weight


grad = jax.grad(loss)
fast = jax.jit(decay)
