import jax, jax.numpy as jnp
@jax.jit
def f(x, n: int):
    n = 3
    return x * len(range(n))
def main():
    return f(jnp.ones(3), 5)
