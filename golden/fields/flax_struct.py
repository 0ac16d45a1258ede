# jaxrewrite: enable
"""Static on flax.struct fields, the decorator and the PyTreeNode base: every form becomes
flax.struct.field(pytree_node=False), by keyword or by position, as flax spells it."""
import dataclasses
from typing import Callable

import pytest

pytest.importorskip("flax", minversion="0.10.1")

import flax.struct
import jax
import jax.numpy as jnp
from flax import struct
from jaxrewrite import Static

TRACES = []


@struct.dataclass
class Layer:
    w: jax.Array
    act: Static[Callable]
    depth: Static[int] = 2
    tag: Static[str] = struct.field(default="layer")
    kind: Static[str] = flax.struct.field(False, default="dense")
    shape: Static[tuple] = dataclasses.field(default=(3,))

    def __call__(self, x):
        TRACES.append(self.depth)
        for _ in range(self.depth):
            x = self.act(self.w * x)
        return x


@struct.dataclass
class HandLayer:
    w: jax.Array
    act: Callable = struct.field(pytree_node=False)
    depth: int = struct.field(default=2, pytree_node=False)
    tag: str = struct.field(default="layer", pytree_node=False)
    kind: str = struct.field(default="dense", pytree_node=False)
    shape: tuple = struct.field(default=(3,), pytree_node=False)

    __call__ = Layer.__call__


class Node(struct.PyTreeNode):
    w: jax.Array
    act: Static[Callable] = struct.field()


class Leaf(Node):
    depth: Static[int] = 3


def _check():
    x = jnp.arange(3.0)
    layer, hand = Layer(jnp.ones(3), jnp.sin), HandLayer(jnp.ones(3), jnp.sin)
    assert len(jax.tree_util.tree_leaves(layer)) == len(jax.tree_util.tree_leaves(hand)) == 1
    TRACES.clear()
    run = jax.jit(lambda m, x: m(x))
    run(layer, x)
    run(layer, x + 1)
    run(layer.replace(depth=3), x)
    assert TRACES == [2, 3], TRACES
    grad = jax.grad(lambda m: m(x).sum())(layer)
    hand_grad = jax.grad(lambda m: m(x).sum())(hand)
    assert jnp.allclose(grad.w, hand_grad.w) and grad.act is jnp.sin
    leaf = Leaf(jnp.ones(2), jnp.cos)
    assert len(jax.tree_util.tree_leaves(leaf)) == 1 and leaf.depth == 3
    assert float(jax.jit(lambda n: n.act(n.w * n.depth))(leaf)[0]) == float(jnp.cos(3.0))


_PLAIN_FAILS = True
