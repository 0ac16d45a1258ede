# jaxrewrite: enable
"""NNX's documented style donates by name (``@nnx.jit(donate_argnames=("model", "optimizer"))``);
a Static argument cannot also be donated."""
from flax import nnx
from jaxrewrite import Static


@nnx.jit(donate_argnames=("model", "n"))
def f(model, x, n: Static[int]):
    return model(x) * n
