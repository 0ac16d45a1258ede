import jax, jax.numpy as jnp
@jax.jit
def f(n):
    return jnp.eye(n)
def main():
    return f(3)
