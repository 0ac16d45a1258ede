# jaxrewrite: enable
"""nnx.grad and nnx.value_and_grad: argnums lists what is differentiated; Static stays out."""
import jax
import jax.numpy as jnp
from flax import nnx
from jaxrewrite import NoDiff, Static


class Scale(nnx.Module):
    def __init__(self):
        self.w = nnx.Param(jnp.array(2.0))


@__import__('functools').partial(nnx.jit, static_argnums=(2,), static_argnames=('n',))
@nnx.grad
def powers(m, x, n: Static[int]):
    for _ in range(n):
        x = x * m.w[...]
    return x


@nnx.jit
@nnx.value_and_grad(argnums=1)
def shifted(m, x, shift: NoDiff[float]):
    return (m.w[...] * x + shift) ** 2


def _check():
    assert float(jax.tree_util.tree_leaves(powers(Scale(), 1.0, 3))[0]) == 12.0
    value, grad = shifted(Scale(), 1.0, 1.0)
    assert (float(value), float(grad)) == (9.0, 12.0)


_PLAIN_FAILS = True
