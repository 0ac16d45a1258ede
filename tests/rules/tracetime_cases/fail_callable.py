from typing import Callable
import jax, jax.numpy as jnp
@jax.jit
def f(x, c_func: Callable[[float], float]):
    return c_func(x)
def main():
    return f(jnp.ones(3), jnp.sin)
