# jaxrewrite: enable
"""A NamedTuple argument with Static fields, together with an ordinary Static parameter."""
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


class Layer(NamedTuple):
    w: jax.Array
    b: jax.Array
    act: Static[str]


@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.static_leaves, partial(jax.jit, static_argnames=("depth",)), leaves=(('layer', 0, 'namedtuple', ('act',)),), static_argnums=(2, 3), static_argnames=('depth', 'repeat'))
def apply(layer: Layer, x, depth, repeat: Static[int] = 1):
    TRACES.append((layer.act, depth, repeat))
    for _ in range(depth * repeat):
        x = layer.w * x + layer.b
        x = jnp.tanh(x) if layer.act == "tanh" else jax.nn.relu(x)
    return x


def _check():
    layer = Layer(jnp.float32(1.0), jnp.float32(0.0), "relu")
    assert float(apply(layer, 2.0, 2)) == 2.0
    assert float(apply(layer._replace(w=jnp.float32(2.0)), 1.0, 2)) == 4.0
    assert TRACES == [("relu", 2, 1)]
    assert float(apply(layer, -1.0, 1, 3)) == 0.0
    assert abs(float(apply(Layer(jnp.float32(1.0), jnp.float32(0.0), "tanh"), 1.0, 1)) - 0.7615942) < 1e-6
    assert len(TRACES) == 3


_PLAIN_FAILS = True
