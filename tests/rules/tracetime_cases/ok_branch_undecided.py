import jax, jax.numpy as jnp
@jax.jit
def f(x, n=None):
    if n is None:
        return x
    return x * len(range(n))
def main():
    return f(jnp.ones(3))
