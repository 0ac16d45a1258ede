# https://github.com/jax-ml/jax/pull/8947 (from #8910: assert on a sum of jnp.add results under jit)
import jax
import jax.numpy as jnp

N = 10


@jax.jit
def f():
    result = sum(jnp.add(1, 1) for _ in range(N))
    assert result > 0
    return result


def main():
    return f()
