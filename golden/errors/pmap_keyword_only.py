# jaxrewrite: enable
import jax
from jaxrewrite import Static


@jax.pmap
def f(x, *, n: Static[int]):
    return x
