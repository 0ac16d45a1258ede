# https://github.com/jax-ml/jax/issues/1406 (num static)
from jax import jit


def foo(num):
    for _ in range(num):
        pass


def main():
    return jit(foo, static_argnums=0)(0)
