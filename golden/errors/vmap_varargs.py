# jaxrewrite: enable
import jax
from jaxrewrite import Static


@jax.vmap
def f(x, n: Static[int], *rest):
    return x
