import jax, jax.numpy as jnp
from functools import partial
@partial(jax.jit, static_argnames=("k",))
def f(x, k, flag: jax.Array):
    return x * k if not flag else x
def main():
    return f(jnp.ones(3), 2, jnp.array(True))
