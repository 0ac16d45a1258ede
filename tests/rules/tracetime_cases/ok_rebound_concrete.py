import jax, jax.numpy as jnp
@jax.jit
def f(x, n):
    n = 3
    return x + jnp.zeros(n * 2).sum()
def main():
    return f(1.0, 5)
