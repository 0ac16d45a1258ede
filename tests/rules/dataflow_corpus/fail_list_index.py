# https://github.com/jax-ml/jax/pull/5853 (jax.jit(lambda i: [1, 2, 3][i])(0), the lambda as a def)
import jax


def pick(i):
    return [1, 2, 3][i]


def main():
    return jax.jit(pick)(0)
