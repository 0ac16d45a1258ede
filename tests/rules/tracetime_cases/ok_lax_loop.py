import jax, jax.numpy as jnp
@jax.jit
def f(x, n: int):
    return jax.lax.fori_loop(0, n, lambda i, v: v + 1, x) + x[n]
def main():
    return f(jnp.ones(3), 2)
