# jaxrewrite: enable
"""An in_axes written by hand must say None at the Static position, StateAxes elsewhere or not."""
from functools import partial

from flax import nnx
from jaxrewrite import Static

state_axes = nnx.StateAxes({nnx.Param: None, ...: 0})


@partial(nnx.vmap, in_axes=(state_axes, 0, 0))
def f(model, x, n: Static[int]):
    return model(x) * n
