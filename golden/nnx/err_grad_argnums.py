# jaxrewrite: enable
"""A NoDiff parameter that nnx.grad's argnums differentiates: refused, as for jax.grad."""
from flax import nnx
from jaxrewrite import NoDiff


@nnx.grad(argnums=(0, 1))
def f(x, idx: NoDiff[int]):
    return x * idx
