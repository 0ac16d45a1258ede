# jaxrewrite: enable
"""The pytree seed: a dict argument with some static entries, declared once in a TypedDict."""
from typing import Callable, TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


class Config(TypedDict):
    x: jax.Array
    y: jax.Array
    steps: Static[int]
    activation: Static[Callable[[jax.Array], jax.Array]]


@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.static_leaves, jax.jit, leaves=(('dic', 0, 'dict', ('steps', 'activation')),), static_argnums=(), static_argnames=())
def fun(dic: Config, scale):
    TRACES.append(dic["steps"])
    out = dic["x"] + dic["y"]
    for _ in range(dic["steps"]):  # a static entry drives Python control flow
        out = dic["activation"](out) * scale
    return out


def _check():
    cfg = Config(x=jnp.ones(2), y=jnp.ones(2), steps=2, activation=jnp.abs)
    assert fun(cfg, 1.0).tolist() == [2.0, 2.0]
    assert fun(dict(cfg, x=jnp.zeros(2)), 1.0).tolist() == [1.0, 1.0]  # new leaves: no retrace
    assert fun(dic=cfg, scale=2.0).tolist() == [8.0, 8.0]  # by keyword: one more trace
    assert fun(dic=cfg, scale=3.0).tolist() == [18.0, 18.0]
    assert TRACES == [2, 2]
    assert fun(dict(cfg, steps=1), 1.0).tolist() == [2.0, 2.0]  # new static entry: retrace
    assert TRACES == [2, 2, 1]
    assert cfg["steps"] == 2 and "steps" in cfg  # the caller's dict is not modified


_PLAIN_FAILS = True
