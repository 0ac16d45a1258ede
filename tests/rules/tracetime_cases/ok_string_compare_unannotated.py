import jax, jax.numpy as jnp
@jax.jit
def f(x, n):
    if n == "a":
        return x
    return x * 2
def main():
    return f(jnp.ones(3), 1)
