from functools import partial
import jax, jax.numpy as jnp
def make(n):
    return jnp.zeros((n, 2))
@partial(jax.jit, static_argnums=1)
def f(x, n):
    return x + make(n).sum()
def main():
    return f(1.0, 3)
