import jax
import jax.numpy as jnp
def f(n):
    return jnp.arange(n)
def main():
    return jax.jit(f)(4)
