# jaxrewrite: enable
"""Per-leaf pjit with its options by position, as plain pjit takes them (issue 20, item 10):
``pjit(f, (s, s), s)`` binds in_shardings and out_shardings, which the helper passes on by
name; a positional static_argnums is merged and shifted like a keyword one."""
import warnings
from typing import TypedDict

import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding
from jaxrewrite import Static

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from jax.experimental.pjit import pjit

s = SingleDeviceSharding(jax.devices()[0])


class Cfg(TypedDict):
    w: jax.Array
    n: Static[int]


def f(x, c: Cfg):
    return x * c["w"] * len(range(c["n"]))


def g(x, c: Cfg, k):
    return x * c["w"] * len(range(c["n"])) * len(range(k))


placed = __import__('jaxrewrite.leaves').leaves.at_call('static_leaves', pjit, (('c', 1, 'dict', ('n',)),))(f, (s, s), s, static_argnums=(), static_argnames=())
with_static = __import__('jaxrewrite.leaves').leaves.at_call('static_leaves', pjit, (('c', 1, 'dict', ('n',)),))(g, (s, s), s, (2,), static_argnames=('k',))
hand = pjit(lambda x, w, n: x * w * len(range(n)), (s, s), s, (2,))


def _check():
    x = jnp.arange(3.0)
    assert jnp.allclose(placed(x, {"w": jnp.float32(2.0), "n": 3}), hand(x, jnp.float32(2.0), 3))
    assert placed(x, {"w": jnp.float32(2.0), "n": 3}).sharding == hand(x, jnp.float32(2.0), 3).sharding
    assert jnp.allclose(with_static(x, {"w": jnp.float32(1.0), "n": 2}, 3), x * 6)


_PLAIN_FAILS = True
