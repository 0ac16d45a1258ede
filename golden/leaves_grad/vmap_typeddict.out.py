# jaxrewrite: enable
"""vmap over a TypedDict with a Static entry, as a decorator and at a call site: the static
entry gets None in the argument's in_axes, so it stays a Python value inside."""
from functools import partial
from typing import TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import Static

SEEN = []


class Flags(TypedDict):
    x: jax.Array
    power: Static[int]


@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.vmap_leaves, partial(jax.vmap, in_axes=({"x": 0, "power": None}, None)), leaves=(('dic', 0, 'dict', ('power',)),))
def fun(dic: Flags, k):
    SEEN.append(dic["power"])
    return dic["x"] ** dic["power"] * k


def plain(dic: Flags):
    SEEN.append(dic["power"])
    return dic["x"] ** dic["power"]


mapped = __import__('jaxrewrite.leaves').leaves.at_call('vmap_leaves', jax.vmap, (('dic', 0, 'dict', ('power',)),))(plain)


def _check():
    d = {"x": jnp.arange(3.0), "power": 2}
    assert jnp.allclose(fun(d, 2.0), 2.0 * jnp.arange(3.0) ** 2)
    assert jnp.allclose(mapped({"x": jnp.arange(3.0), "power": 3}), jnp.arange(3.0) ** 3)
    assert SEEN == [2, 3]


_PLAIN_FAILS = True
