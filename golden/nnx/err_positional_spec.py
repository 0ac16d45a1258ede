# jaxrewrite: enable
"""Every parameter of nnx.jit after the function is keyword-only (jax.jit once took them by
position): a spec passed by position is refused rather than merged."""
from flax import nnx
from jaxrewrite import Static


def f(x, n: Static[int]):
    return x * n


g = nnx.jit(f, None)
