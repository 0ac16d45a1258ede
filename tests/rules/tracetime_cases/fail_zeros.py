import jax, jax.numpy as jnp
@jax.jit
def f(x, n: int):
    return x.sum() + jnp.zeros((n, 2))
def main():
    return f(jnp.ones(3), 2)
