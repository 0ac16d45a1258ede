import jax, jax.numpy as jnp
SCALE = {1: 2.0, 2: 3.0}
@jax.jit
def f(x, n):
    return x * SCALE[n]
def main():
    return f(jnp.ones(3), 1)
