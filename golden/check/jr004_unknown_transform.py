# jaxrewrite: enable
"""Decorators and calls that look like transforms but are not in jaxrewrite's table."""
import equinox as eqx
import jax

from jaxrewrite import Static


def my_jit(fun):
    return jax.jit(fun)


@eqx.filter_jit
def a(x, n: Static[int]):
    return x


@my_jit
def b(x, n: Static[int]):
    return x


def c(x, n: Static[int]):
    return x


fast_c = my_jit(c)


@jax.jit
@eqx.filter_jit
def d(x, n: Static[int]):
    return x
