import jax, jax.numpy as jnp
@jax.jit
def f(x, n):
    return x * int(n)
def main():
    return f(jnp.ones(3), 2)
