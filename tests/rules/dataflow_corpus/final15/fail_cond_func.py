# https://mint.westdri.ca/ai/jx_jit (@jit cond_func: if x < 0.0)
from jax import jit


@jit
def cond_func(x):
    if x < 0.0:
        return x**2.0
    else:
        return x**3.0


def main():
    return cond_func(1.0)
