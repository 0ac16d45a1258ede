# jaxrewrite: enable
"""Per-leaf vmap with no whole-parameter Static writes no in_axes (issue 20, item 3): vmap's
default, or what the user wrote (a name, a tuple for ``*xs``), fits the argument as the
helper passes it (its structure, None at the static entries). Compared with vmap by hand."""
from typing import TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import Static


class Cfg(TypedDict):
    w: jax.Array
    n: Static[int]


def f(x, c: Cfg, scale=1.0):
    return x * c["w"] * len(range(c["n"])) * scale


def g(c: Cfg, *xs):
    return sum(xs) * c["w"] * len(range(c["n"]))


AXES = (0, {"w": 0, "n": None}, None)

v = jax.vmap(f)
named = jax.vmap(f, in_axes=AXES)
star = jax.vmap(g)
star_axes = jax.vmap(g, in_axes=({"w": 0, "n": None}, 0, None))


def _check():
    xb, wb = jnp.arange(3.0), jnp.arange(3.0) + 1.0
    hand = jax.vmap(lambda x, w: x * w * 2)(xb, wb)
    assert jnp.allclose(v(xb, {"w": wb, "n": 2}), hand)
    assert jnp.allclose(v(xb, c={"w": wb, "n": 2}), hand)
    assert jnp.allclose(v(xb, {"w": wb, "n": 2}, jnp.full(3, 2.0)), 2 * hand)
    assert jnp.allclose(named(xb, {"w": wb, "n": 2}, 2.0), 2 * hand)
    assert jnp.allclose(star({"w": wb, "n": 2}, xb, xb), 2 * hand)
    assert jnp.allclose(star_axes({"w": wb, "n": 2}, xb, 1.0), jax.vmap(lambda x, w: (x + 1.0) * w * 2)(xb, wb))


_PLAIN_FAILS = True
