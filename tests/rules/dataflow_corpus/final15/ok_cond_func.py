# https://mint.westdri.ca/ai/jx_jit (the page's fix: lax.cond)
from jax import jit, lax


@jit
def cond_func(x):
    return lax.cond(x < 0.0, lambda x: x**2.0, lambda x: x**3.0, x)


def main():
    return cond_func(1.0)
