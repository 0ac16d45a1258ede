import jax, jax.numpy as jnp
@jax.jit
def f(x, dr=0):
    if dr == 0:
        return x
    return -x
def main():
    return f(jnp.ones(2), dr=1)
