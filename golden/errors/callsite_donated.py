# jaxrewrite: enable
import jax
from jaxrewrite import Static


def f(x, n: Static[int]):
    return x


g = jax.jit(f, donate_argnames=("n",))
