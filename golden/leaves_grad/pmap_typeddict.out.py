# jaxrewrite: enable
"""pmap over a TypedDict with a Static entry: the static entry is broadcast as static (a Python
value inside, one trace per value), the arrays are mapped as in_axes says."""
from functools import partial
from typing import TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


class Flags(TypedDict):
    x: jax.Array
    y: jax.Array
    square: Static[bool]


@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.pmap_leaves, partial(jax.pmap, axis_name="i", in_axes=(0, None)), leaves=(('dic', 0, 'dict', ('square',)),), static_broadcasted_argnums=())
def fun(dic: Flags, k):
    TRACES.append(dic["square"])
    out = dic["x"] + dic["y"] * k
    return out * out if dic["square"] else out


def _check():
    n = jax.local_device_count()
    d = {"x": jnp.ones(n), "y": jnp.arange(float(n)), "square": True}
    assert jnp.allclose(fun(d, 2.0), (1.0 + 2.0 * jnp.arange(float(n))) ** 2)
    fun({**d, "x": jnp.zeros(n)}, 2.0)
    assert TRACES == [True]
    assert jnp.allclose(fun({**d, "square": False}, 1.0), 1.0 + jnp.arange(float(n)))
    assert TRACES == [True, False]


_PLAIN_FAILS = True
