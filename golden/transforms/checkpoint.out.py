# jaxrewrite: enable
"""jax.checkpoint / jax.remat: static_argnums from Static positions."""
import jax
from jaxrewrite import Static


@__import__('functools').partial(jax.checkpoint, static_argnums=(1,))
def f(x, n: Static[int]):
    for _ in range(n):
        x = jax.numpy.sin(x)
    return x


@__import__('functools').partial(jax.remat, static_argnums=(1,))
def g(x, n: Static[int]):
    return x * len(range(n))


def _check():
    assert abs(float(jax.grad(f)(0.0, 2)) - 1.0) < 1e-6
    assert float(jax.grad(g)(1.0, 3)) == 3.0


_PLAIN_FAILS = True
