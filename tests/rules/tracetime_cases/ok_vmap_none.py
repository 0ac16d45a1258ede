import jax, jax.numpy as jnp
def f(x, n: int):
    return x * len(range(n))
def main():
    return jax.vmap(f, in_axes=(0, None))(jnp.ones(3), 3)
