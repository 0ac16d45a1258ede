import jax, jax.numpy as jnp
class A:
    @staticmethod
    @jax.jit
    def make(x, n):
        return x * n
    def use(self, x):
        return self.make(x, 3)
def main():
    return A().make(jnp.ones(3), 2), A().use(jnp.ones(3))
