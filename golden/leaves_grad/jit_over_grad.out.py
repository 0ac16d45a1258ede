# jaxrewrite: enable
"""jit over grad, as stacked decorators and as a call on a def of the module: one trace per
distinct set of static entries; new array values (NoDiff ones too) do not retrace."""
from typing import TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import NoDiff, Static

TRACES = []


class Config(TypedDict):
    w: jax.Array
    steps: Static[int]
    mask: NoDiff[jax.Array]


@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.static_leaves, jax.jit, leaves=(('cfg', 0, 'dict', ('steps',)),), static_argnums=(), static_argnames=())
@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.grad_leaves, jax.grad, leaves=(('cfg', 0, 'dict', ('steps', 'mask')),))
def step(cfg: Config, x):
    TRACES.append(("step", cfg["steps"]))
    out = x
    for _ in range(cfg["steps"]):
        out = jnp.sin(cfg["w"] * out)
    return (out * cfg["mask"]).sum()


def loss(cfg: Config, x, scale: Static[float]):
    TRACES.append(("loss", cfg["steps"], scale))
    return (cfg["w"] * x * cfg["mask"]).sum() * scale * cfg["steps"]


fast = __import__('jaxrewrite.leaves').leaves.at_call('static_leaves', jax.jit, (('cfg', 0, 'dict', ('steps',)),))(__import__('jaxrewrite.leaves').leaves.at_call('grad_leaves', jax.grad, (('cfg', 0, 'dict', ('steps', 'mask')),))(loss), static_argnums=(2,), static_argnames=('scale',))


def _check():
    cfg = {"w": jnp.array([1.0, 2.0]), "steps": 2, "mask": jnp.array([1.0, 1.0])}
    x = jnp.array([0.5, 0.25])
    g = step(cfg, x)
    assert g["steps"] is None and g["mask"] is None
    step({**cfg, "w": jnp.array([3.0, 4.0]), "mask": jnp.array([0.0, 1.0])}, x)
    assert TRACES == [("step", 2)]
    step({**cfg, "steps": 3}, x)
    assert TRACES == [("step", 2), ("step", 3)]

    def by_hand(w, x, mask, steps):
        out = x
        for _ in range(steps):
            out = jnp.sin(w * out)
        return (out * mask).sum()

    assert jnp.allclose(g["w"], jax.grad(by_hand)(cfg["w"], x, cfg["mask"], 2))
    g = fast(cfg, x, 2.0)
    assert jnp.allclose(g["w"], x * 2.0 * 2) and g["steps"] is None
    fast({**cfg, "w": jnp.ones(2)}, x, 2.0)
    assert TRACES[2:] == [("loss", 2, 2.0)]
    fast(cfg, x, 3.0)
    assert TRACES[2:] == [("loss", 2, 2.0), ("loss", 2, 3.0)]


_PLAIN_FAILS = True
