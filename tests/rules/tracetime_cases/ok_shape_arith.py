import jax, jax.numpy as jnp
@jax.jit
def f(x):
    n = x.shape[0] * 2
    for _ in range(n + 1):
        x = x + 1
    return jnp.zeros(n) + x.sum()
def main():
    return f(jnp.ones(3))
