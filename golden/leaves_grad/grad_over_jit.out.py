# jaxrewrite: enable
"""value_and_grad over jit: grad holds the Static and NoDiff entries out of differentiation,
then jit hashes the Static one; the jitted function traces once per static value."""
from typing import TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import NoDiff, Static

TRACES = []


class Config(TypedDict):
    w: jax.Array
    n: Static[int]
    idx: NoDiff[jax.Array]


@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.grad_leaves, jax.value_and_grad, leaves=(('d', 0, 'dict', ('n', 'idx')),))
@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.static_leaves, jax.jit, leaves=(('d', 0, 'dict', ('n',)),), static_argnums=(), static_argnames=())
def loss(d: Config):
    TRACES.append(d["n"])
    return (d["w"][d["idx"]] ** d["n"]).sum()


def _check():
    d = {"w": jnp.arange(3.0), "n": 2, "idx": jnp.array([1, 2])}
    value, g = loss(d)
    assert float(value) == 5.0 and g["n"] is None and g["idx"] is None
    assert g["w"].tolist() == [0.0, 2.0, 4.0]
    loss({**d, "w": jnp.ones(3), "idx": jnp.array([0, 0])})
    assert TRACES == [2]
    loss({**d, "n": 3})
    assert TRACES == [2, 3]


_PLAIN_FAILS = True
