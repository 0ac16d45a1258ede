import jax, jax.numpy as jnp
@jax.jit
def f(x, n):
    if isinstance(n, int):
        return x * len(range(n))
    return x * n
def main():
    return f(jnp.ones(3), 3)
