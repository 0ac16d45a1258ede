# https://github.com/jax-ml/jax/issues/5595 (the first variant, which works: jit of the bound method)
import jax


class A1:
    def __init__(self):
        self.f = jax.jit(self.f)

    def f(self, x):
        return x


def main():
    a = A1()
    return a.f(5)
