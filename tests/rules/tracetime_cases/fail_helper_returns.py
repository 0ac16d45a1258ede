import jax, jax.numpy as jnp
def double(n):
    return n * 2
@jax.jit
def f(x, n):
    return x + jnp.zeros(double(n)).sum()
def main():
    return f(1.0, 3)
