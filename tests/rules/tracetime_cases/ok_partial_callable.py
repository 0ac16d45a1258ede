import jax, jax.numpy as jnp
from jax.tree_util import Partial
@jax.jit
def f(x, c):
    return c(x)
def main():
    return f(jnp.ones(3), Partial(jnp.sin))
