# https://github.com/jax-ml/jax/issues/14740 (jax.jit(lambda x: x)(A()), the lambda as a def)
import jax


class A:
    pass


def ident(x):
    return x


def main():
    return jax.jit(ident)(A())
