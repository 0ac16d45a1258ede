# jaxrewrite: enable
"""``typing.get_type_hints`` on per-leaf jit, grad, vmap and pmap results gives the user
function's hints (issue 20, item 9), as it does on jax.jit's, jax.grad's and jax.vmap's."""
import typing
from typing import TypedDict

import jax
from jaxrewrite import NoDiff, Static


class Cfg(TypedDict):
    w: jax.Array
    n: Static[int]
    idx: NoDiff[jax.Array]


def loss(x: jax.Array, c: Cfg, scale: float = 1.0) -> jax.Array:
    return (x * c["w"]).sum() * c["n"] * scale


def plain(x: jax.Array, c: dict, scale: float = 1.0) -> jax.Array:
    return (x * c["w"]).sum() * scale


jitted = __import__('jaxrewrite.leaves').leaves.at_call('static_leaves', jax.jit, (('c', 1, 'dict', ('n',)),))(loss, static_argnums=(), static_argnames=())
grads = __import__('jaxrewrite.leaves').leaves.at_call('grad_leaves', jax.grad, (('c', 1, 'dict', ('n', 'idx')),))(loss)
valued = __import__('jaxrewrite.leaves').leaves.at_call('grad_leaves', jax.value_and_grad, (('c', 1, 'dict', ('n', 'idx')),))(loss)
mapped = __import__('jaxrewrite.leaves').leaves.at_call('vmap_leaves', jax.vmap, (('c', 1, 'dict', ('n',)),))(loss)
pmapped = __import__('jaxrewrite.leaves').leaves.at_call('pmap_leaves', jax.pmap, (('c', 1, 'dict', ('n',)),))(loss, static_broadcasted_argnums=())


def _check():
    hints = typing.get_type_hints(loss)
    assert hints["c"] is Cfg and hints["return"] is jax.Array
    for wrapper in (jitted, grads, valued, mapped, pmapped):
        assert typing.get_type_hints(wrapper) == hints, wrapper
    # What JAX's own results give for a function without per-leaf entries.
    for transform in (jax.jit, jax.grad, jax.vmap):
        assert typing.get_type_hints(transform(plain)) == typing.get_type_hints(plain)
