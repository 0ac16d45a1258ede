# https://github.com/jax-ml/jax/issues/5595 (@jit on a method of a plain class: self is traced)
from jax import jit


class A1:
    def __init__(self):
        pass

    @jit
    def f(self, x):
        return x


def main():
    a = A1()
    return a.f(5)
