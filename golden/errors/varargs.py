# jaxrewrite: enable
import jax
from jaxrewrite import Static


@jax.jit
def f(x, *rest: Static[int]):
    return x
