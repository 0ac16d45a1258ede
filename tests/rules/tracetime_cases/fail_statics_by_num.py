import jax, jax.numpy as jnp
def f(x, k: int, n: int):
    return x * k * len(range(n))
g = jax.jit(f, static_argnums=(1,))
def main():
    return g(jnp.ones(3), 2, 3)
