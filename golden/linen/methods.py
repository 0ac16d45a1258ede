# jaxrewrite: enable
"""Flax Linen: nn.jit and nn.remat count self in static_argnums; nn.vmap's in_axes leaves it out."""
from functools import partial

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


class Early(nn.Module):
    @nn.jit
    @nn.compact
    def __call__(self, n: Static[int], x, y):
        TRACES.append(n)
        w = self.param("w", lambda key, shape: jnp.full(shape, 2.0), (2,))
        for _ in range(n):
            x = x * w
        return x + y


class ByName(nn.Module):
    @partial(nn.jit, donate_argnums=())
    @nn.compact
    def __call__(self, x, *, n: Static[int]):
        TRACES.append(n)
        for _ in range(n):
            x = x + 1.0
        return x


class Rematted(nn.Module):
    @nn.remat
    @nn.compact
    def __call__(self, x, n: Static[int]):
        w = self.param("w", lambda key, shape: jnp.full(shape, 2.0), (2,))
        for _ in range(n):
            x = x * w
        return x


class Tiled(nn.Module):
    @partial(nn.vmap, variable_axes={"params": None}, split_rngs={"params": False})
    @nn.compact
    def __call__(self, x, n: Static[int]):
        return jnp.full(n, x.sum())


def scaled(module, x, *, times: Static[int]):
    return x * times


class Outer(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.jit(scaled)(self, x, times=3)


def _check():
    x = jnp.ones(2)
    early = Early()
    variables = early.init(jax.random.PRNGKey(0), 3, x, x)
    assert early.apply(variables, 3, x, x).tolist() == [9.0, 9.0]
    assert early.apply(variables, n=3, x=x, y=x).tolist() == [9.0, 9.0]
    assert all(isinstance(n, int) for n in TRACES)
    by_name = ByName()
    assert by_name.apply(by_name.init(jax.random.PRNGKey(0), x, n=2), x, n=2).tolist() == [3.0, 3.0]
    remat = Rematted()
    variables = remat.init(jax.random.PRNGKey(0), x, 3)
    grads = jax.grad(lambda v: remat.apply(v, x, 3).sum())(variables)
    assert grads["params"]["w"].tolist() == [12.0, 12.0]
    assert Tiled().apply({}, jnp.ones((3, 2)), 4).shape == (3, 4)
    assert Outer().apply({}, x).tolist() == [3.0, 3.0]


_PLAIN_FAILS = True
