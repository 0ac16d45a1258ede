import jax, jax.numpy as jnp
@jax.jit
def f(x, flag: bool):
    if flag:
        return x
    return -x
def main():
    return f(jnp.ones(3), True)
