# https://github.com/jax-ml/jax/issues/7969 (the comparison split and joined with &)
import jax


def f(x):
    return jax.numpy.piecewise(x, [x < 0, (0 < x) & (x < 1)], [lambda x: -x, lambda x: x])


def main():
    f_jit = jax.jit(f)
    return f_jit(0.5)
