# jaxrewrite: enable
import jax

from jaxrewrite import Static


@jax.jit
def f(x, k: Static[int], n: int):
    return x * k * len(range(n))
