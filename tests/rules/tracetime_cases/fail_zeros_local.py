import jax, jax.numpy as jnp
@jax.jit
def f(x, n):
    m = n * 2
    return x + jnp.zeros(m).sum()
def main():
    return f(jnp.ones(3), 3)
