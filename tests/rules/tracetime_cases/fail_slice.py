import jax, jax.numpy as jnp
@jax.jit
def f(x, n):
    return x[:n]
def main():
    return f(jnp.ones(5), 2)
