import jax, jax.numpy as jnp
def f(x, n: int):
    return x * len(range(n))
def main():
    return jax.vmap(f)(jnp.ones(3), jnp.arange(3))
