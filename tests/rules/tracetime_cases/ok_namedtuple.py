from typing import NamedTuple
import jax, jax.numpy as jnp
class Params(NamedTuple):
    w: jax.Array
@jax.jit
def f(x, p: Params):
    return x * p.w
def main():
    return f(jnp.ones(3), Params(jnp.ones(3)))
