from functools import partial
import jax, jax.numpy as jnp
@partial(jax.jit, static_argnames="mode")
def f(x, mode):
    return x if mode == "a" else -x
def main():
    return f(jnp.ones(2), mode="a")
