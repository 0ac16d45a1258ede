# https://github.com/jax-ml/jax/issues/15115 (@jit on opt.opt: self is an instance of a plain class)
import jax.numpy as jnp
from jax import jit


class opt:
    def __init__(self, lr=0.01):
        self.lr = lr

    @jit
    def opt(self, gradient, parameter):
        return parameter - self.lr * gradient


def main():
    o = opt()
    return o.opt(jnp.ones(2), jnp.ones(2))
