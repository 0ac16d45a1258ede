# https://github.com/jax-ml/jax/pull/23860 (f('foo'): a str passed where jit traces)
import jax


@jax.jit
def f(x):
    return x


def main():
    return f('foo')
