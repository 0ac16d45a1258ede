import jax, jax.numpy as jnp
@jax.jit
def f(x, scale=1.0):
    return x * scale
def main():
    return f(jnp.ones(2), scale=2.0)
