# jaxrewrite: enable
"""Static on Equinox Module fields: every form becomes eqx.field(static=True), the user's value
and arguments kept in place; the Module then flattens, jits and differentiates exactly like the
same Module written by hand."""
import dataclasses
from typing import Callable

import pytest

pytest.importorskip("equinox")

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


class Mlp(eqx.Module):
    weight: jax.Array
    act: Static[Callable]
    scale: Static[float] = eqx.field(converter=float)
    depth: Static[int] = 2
    names: Static[tuple] = eqx.field(default_factory=lambda: ("a",))
    tag: Static[str] = dataclasses.field(default="mlp")
    extra: Static[tuple] = dataclasses.field(default=(), metadata={"doc": "kept"})
    kept: Static[int] = eqx.field(default=1, static=True)

    def __call__(self, x):
        TRACES.append(self.depth)
        for _ in range(self.depth):
            x = self.act(self.weight * x) * self.scale
        return x


class HandMlp(eqx.Module):
    weight: jax.Array
    act: Callable = eqx.field(static=True)
    scale: float = eqx.field(converter=float, static=True)
    depth: int = eqx.field(default=2, static=True)
    names: tuple = eqx.field(default_factory=lambda: ("a",), static=True)
    tag: str = eqx.field(default="mlp", static=True)
    extra: tuple = eqx.field(default=(), metadata={"doc": "kept"}, static=True)
    kept: int = eqx.field(default=1, static=True)

    def __call__(self, x):
        TRACES.append(self.depth)
        for _ in range(self.depth):
            x = self.act(self.weight * x) * self.scale
        return x


def _check():
    x = jnp.arange(3.0)
    model, hand = Mlp(jnp.ones(3), jnp.tanh, 2), HandMlp(jnp.ones(3), jnp.tanh, 2)
    leaves = jax.tree_util.tree_leaves(model)
    assert len(leaves) == len(jax.tree_util.tree_leaves(hand)) == 1
    assert all(jnp.array_equal(a, b) for a, b in zip(leaves, jax.tree_util.tree_leaves(hand)))
    assert {f.name: f for f in dataclasses.fields(Mlp)}["extra"].metadata["doc"] == "kept" and model.scale == 2.0
    for jit in (jax.jit, eqx.filter_jit):
        TRACES.clear()
        run = jit(lambda m, x: m(x))
        run(model, x)
        run(model, x + 1)
        run(Mlp(jnp.ones(3), jnp.tanh, 2, depth=3), x)
        assert TRACES == [2, 3], TRACES
    grad = eqx.filter_grad(lambda m, x: m(x).sum())(model, x)
    hand_grad = eqx.filter_grad(lambda m, x: m(x).sum())(hand, x)
    assert jnp.allclose(grad.weight, hand_grad.weight) and grad.act is jnp.tanh
    assert jnp.allclose(jax.grad(lambda m: m(x).sum())(model).weight, hand_grad.weight)


_PLAIN_FAILS = True
