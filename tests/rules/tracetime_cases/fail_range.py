import jax, jax.numpy as jnp
@jax.jit
def f(x, n: int):
    for _ in range(n):
        x = x + 1
    return x
def main():
    return f(jnp.ones(3), 3)
