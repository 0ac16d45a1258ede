# https://github.com/jax-ml/jax/issues/9298 (f and g jitted: `if lower < 1` on a traced lower)
from jax import jit


@jit
def f(init, lower):
    if lower < 1:
        return 0.0
    else:
        return g(init, lower - 1)


@jit
def g(init, lower):
    if lower < 1:
        return 0.0
    else:
        return f(init, lower - 1)


def h():
    return f(0.0, 2)


def main():
    return h()
