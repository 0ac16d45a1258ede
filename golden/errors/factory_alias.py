# jaxrewrite: enable
import jax
from jaxrewrite import Static

fast = jax.jit(inline=True)


@fast
def f(x, n: Static[int]):
    return x
