"""Plain JAX, no jaxrewrite anywhere: the arguments jit traces that the body needs as values."""
from typing import Callable

import jax


@jax.jit
def f(x, c_func: Callable[[float], float], n: int, mode: str = "a"):
    for _ in range(n):
        x = c_func(x)
    if mode == "a":
        x = x + 1
    return x


def g(x, n, flag: bool):
    if flag:
        return x[:n]
    return x


g_jit = jax.jit(g, static_argnames=("n",))
