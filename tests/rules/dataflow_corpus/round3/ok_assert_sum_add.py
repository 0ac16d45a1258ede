# https://github.com/jax-ml/jax/pull/8947 (the same sum on Python ints: the assert reads a Python value)
import jax

N = 10


@jax.jit
def f():
    result = sum(1 + 1 for _ in range(N))
    assert result > 0
    return result


def main():
    return f()
