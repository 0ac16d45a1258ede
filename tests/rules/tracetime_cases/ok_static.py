import jax, jax.numpy as jnp
from functools import partial
@partial(jax.jit, static_argnames=("n", "mode"))
def f(x, n: int, mode: str = "a"):
    for _ in range(n):
        x = x + 1
    return x if mode == "a" else -x
def main():
    return f(jnp.ones(3), 3, mode="b")
