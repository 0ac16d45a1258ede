import jax, jax.numpy as jnp
def make(n):
    return jnp.zeros((n, 2))
@jax.jit
def f(x, n):
    return x + make(n).sum()
def main():
    return f(1.0, 3)
