import jax, jax.numpy as jnp
def f(x, n):
    return x * len(list(range(n)))
g = jax.jit(f)
def main():
    return g(jnp.ones(3), 3)
