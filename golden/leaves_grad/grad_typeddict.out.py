# jaxrewrite: enable
"""grad over a TypedDict with Static and NoDiff entries: the gradient has the dict's keys, None at
the held entries (equinox.filter_grad's convention), and equals the hand-split JAX gradient."""
from typing import Callable, TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import NoDiff, Static

SEEN = []


class Batch(TypedDict):
    w: jax.Array
    x: jax.Array
    steps: Static[int]
    act: Static[Callable[[jax.Array], jax.Array]]
    idx: NoDiff[jax.Array]


@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.grad_leaves, jax.grad, leaves=(('d', 0, 'dict', ('steps', 'act', 'idx')),))
def loss(d: Batch):
    SEEN.append((d["steps"], d["act"]))
    out = d["w"] * d["x"]
    for _ in range(d["steps"]):
        out = d["act"](out)
    return out[d["idx"]].sum()


def _by_hand(arrays, steps, act, idx):
    out = arrays["w"] * arrays["x"]
    for _ in range(steps):
        out = act(out)
    return out[idx].sum()


def _check():
    idx = jnp.array([0, 2])
    d = {"w": jnp.array([1.0, 2.0, 3.0]), "x": jnp.array([0.5, 1.0, -1.0]), "steps": 2, "act": jnp.tanh, "idx": idx}
    g = loss(d)
    assert set(g) == set(d)
    assert g["steps"] is None and g["act"] is None and g["idx"] is None
    want = jax.grad(_by_hand)({"w": d["w"], "x": d["x"]}, 2, jnp.tanh, idx)
    assert jnp.allclose(g["w"], want["w"]) and jnp.allclose(g["x"], want["x"])
    assert SEEN == [(2, jnp.tanh)]  # Python values inside, not tracers
    assert d["steps"] == 2 and d["idx"] is idx  # the caller's dict is not modified


_PLAIN_FAILS = True
