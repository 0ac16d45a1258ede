# jaxrewrite: enable
"""value_and_grad with argnums=(0, 1) and has_aux over a NamedTuple with Static and NoDiff
fields: the held fields are None in the gradient, the second argument's gradient is ordinary."""
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jaxrewrite import NoDiff, Static


class Layer(NamedTuple):
    w: jax.Array
    act: Static[str]
    mask: NoDiff[jax.Array]


@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.grad_leaves, partial(jax.value_and_grad, argnums=(0, 1), has_aux=True), leaves=(('layer', 0, 'namedtuple', ('act', 'mask')),))
def loss(layer: Layer, x, scale: float = 1.0):
    y = layer.w * x * layer.mask
    y = jnp.tanh(y) if layer.act == "tanh" else y
    return (y * scale).sum(), layer.act


def _check():
    layer = Layer(jnp.array([1.0, 2.0]), "tanh", jnp.array([1.0, 0.0]))
    (value, aux), (g_layer, g_x) = loss(layer, jnp.array([0.5, 0.5]), 2.0)
    assert aux == "tanh"
    assert isinstance(g_layer, Layer) and g_layer.act is None and g_layer.mask is None

    def by_hand(w, x):
        return (jnp.tanh(w * x * layer.mask) * 2.0).sum()

    want_value, (want_w, want_x) = jax.value_and_grad(by_hand, argnums=(0, 1))(layer.w, jnp.array([0.5, 0.5]))
    assert jnp.allclose(value, want_value)
    assert jnp.allclose(g_layer.w, want_w) and jnp.allclose(g_x, want_x)
    (value, aux), _ = loss(layer._replace(act="linear"), jnp.array([0.5, 0.5]))
    assert aux == "linear" and float(value) == 0.5


_PLAIN_FAILS = True
