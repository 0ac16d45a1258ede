# https://github.com/jax-ml/jax/issues/9298 (lower static: static_argnums=(1,), as the thread says)
from functools import partial

from jax import jit


@partial(jit, static_argnums=(1,))
def f(init, lower):
    if lower < 1:
        return 0.0
    else:
        return g(init, lower - 1)


@partial(jit, static_argnums=(1,))
def g(init, lower):
    if lower < 1:
        return 0.0
    else:
        return f(init, lower - 1)


def h():
    return f(0.0, 2)


def main():
    return h()
