# https://github.com/jax-ml/jax/issues/5595 (froystig's fix: static_argnums=0)
from functools import partial

from jax import jit


class A1:
    def __init__(self):
        pass

    @partial(jit, static_argnums=0)
    def f(self, x):
        return x


def main():
    a = A1()
    return a.f(5)
