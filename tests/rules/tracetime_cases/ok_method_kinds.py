from functools import partial
import jax, jax.numpy as jnp
class A:
    @staticmethod
    @jax.jit
    def make(x, n):
        return x * n
    @partial(jax.jit, static_argnums=0)
    def apply(self, x, n):
        return x + n
    @classmethod
    @partial(jax.jit, static_argnums=0)
    def build(cls, x, n):
        return x - n
    def use(self, x):
        return self.make(x, 2), self.apply(x, 2.0), self.build(x, 3)
    @classmethod
    def cuse(cls, x):
        return cls.make(x, 2), cls.build(x, 1.0), A.apply(A(), x, 2)
def main():
    x = jnp.ones(3)
    a = A()
    return A().make(x, 2), A.make(x, 3), a.use(x), A.cuse(x), a.apply(x, 1), A.build(x, 2)
