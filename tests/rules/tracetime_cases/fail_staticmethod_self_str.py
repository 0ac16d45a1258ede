import jax, jax.numpy as jnp
class A:
    @staticmethod
    @jax.jit
    def make(x, mode):
        return x
    def use(self, x):
        return self.make(x, "relu")
def main():
    return A().use(jnp.ones(3))
