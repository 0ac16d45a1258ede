# https://github.com/jax-ml/jax/issues/7969 (jnp.piecewise with the chained comparison 0 < x < 1 under jit)
import jax


def f(x):
    return jax.numpy.piecewise(x, [x < 0, 0 < x < 1], [lambda x: -x, lambda x: x])


def main():
    f_jit = jax.jit(f)
    return f_jit(0.5)
