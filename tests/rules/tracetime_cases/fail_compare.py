import jax, jax.numpy as jnp
@jax.jit
def f(x, n: int):
    while n > 0:
        x = x * 2
        break
    return x
def main():
    return f(jnp.ones(3), 2)
