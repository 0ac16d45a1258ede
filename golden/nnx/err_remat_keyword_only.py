# jaxrewrite: enable
"""nnx.remat has static_argnums and no static_argnames: a keyword-only Static parameter is refused."""
from flax import nnx
from jaxrewrite import Static


@nnx.remat
def f(x, *, n: Static[int]):
    return x * n
