from functools import partial
import jax, jax.numpy as jnp
class A:
    @classmethod
    @partial(jax.jit, static_argnums=0)
    def build(cls, x, kind):
        return x
    @classmethod
    def make(cls, x):
        return cls.build(x, "b")
def main():
    return A.make(jnp.ones(3))
