# jaxrewrite: enable
"""nnx.custom_vjp also takes DiffState objects in nondiff_argnums (which substates of a Module
are differentiated). Such a spec is not a literal, so no Static/NoDiff position can be merged
into it: refused, pointing at the spec, rather than guessed. Without markers it is left alone."""
import jax.numpy as jnp
from flax import nnx
from jaxrewrite import Static

only_w = nnx.DiffState(0, nnx.PathContains("w"))


@nnx.custom_vjp(nondiff_argnums=(only_w,))
def f(model, x, n: Static[int]):
    return model.w * x * n
