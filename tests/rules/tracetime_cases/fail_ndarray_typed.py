import jax, numpy as np, numpy.typing as npt
@jax.jit
def f(x: npt.NDArray):
    if x.sum() > 0:
        return x * 2
    return x
def main():
    return f(np.ones(3))
