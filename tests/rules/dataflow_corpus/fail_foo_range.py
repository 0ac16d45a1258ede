# https://github.com/jax-ml/jax/issues/1406 ('JaxprTracer' object cannot be interpreted as an integer)
from jax import jit


def foo(num):
    for _ in range(num):
        pass


def main():
    return jit(foo)(0)
