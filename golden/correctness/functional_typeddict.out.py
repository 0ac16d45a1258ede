# jaxrewrite: enable
"""Functional TypedDict and NamedTuple forms carry per-leaf statics like their class forms."""
from typing import Callable, NamedTuple, TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []

Config = TypedDict("Config", {"x": jax.Array, "steps": Static[int]})
Layer = NamedTuple("Layer", [("w", jax.Array), ("act", Static[str])])
Fn = Callable[[jax.Array, Static[int]], jax.Array]  # markers inside Callable describe the callee


def describe(cfg: Config):  # no transform: nothing to do
    return sorted(cfg)


def apply(f: Fn, x):  # f's own parameters, not apply's
    return f(x, 2)


@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.static_leaves, jax.jit, leaves=(('cfg', 0, 'dict', ('steps',)),), static_argnums=(), static_argnames=())
def run(cfg: Config, scale):
    TRACES.append(("run", cfg["steps"]))
    out = cfg["x"] * scale
    for _ in range(cfg["steps"]):
        out = out * 2
    return out


@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.static_leaves, jax.jit, leaves=(('l', 0, 'namedtuple', ('act',)),), static_argnums=(), static_argnames=())
def layer(l: Layer, x):
    TRACES.append(("layer", l.act))
    x = l.w * x
    return jnp.tanh(x) if l.act == "tanh" else jax.nn.relu(x)


def _check():
    cfg = {"x": jnp.ones(2), "steps": 2}
    assert describe(cfg) == ["steps", "x"]
    assert run(cfg, 1.0).tolist() == [4.0, 4.0]
    assert run({**cfg, "x": jnp.zeros(2)}, 1.0).tolist() == [0.0, 0.0]  # new leaves: no retrace
    assert TRACES == [("run", 2)]
    assert run({**cfg, "steps": 1}, 1.0).tolist() == [2.0, 2.0]  # new static entry: retrace
    assert float(layer(Layer(jnp.float32(-1.0), "relu"), 1.0)) == 0.0
    assert float(layer(Layer(jnp.float32(2.0), "relu"), 1.0)) == 2.0  # no retrace
    assert TRACES == [("run", 2), ("run", 1), ("layer", "relu")]
    assert apply(lambda x, n: x * n, 3.0) == 6.0


_PLAIN_FAILS = True
