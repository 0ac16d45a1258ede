import jax, jax.numpy as jnp
@jax.jit
def f(x, d, ndim: int):
    return x + jnp.ones([d * 2 + 1] * ndim).sum()
def main():
    return f(1.0, 2, 2)
