# jaxrewrite: enable
"""The decorator-factory form (JAX >= 0.8.1 only): completed in place, as the user wrote it."""
import jax
from jaxrewrite import Static


def _factory_supported():
    return tuple(int(p) for p in jax.__version__.split(".")[:3]) >= (0, 8, 1)


if _factory_supported():

    @jax.jit(static_argnames=("m",))
    def f(x, m, n: Static[int]):
        return x * len(range(m + n))

    @jax.jit()
    def g(x, n: Static[int]):
        return x * len(range(n))


def _check():
    if _factory_supported():
        assert float(f(1.0, 2, 3)) == 5.0
        assert float(g(1.0, 3)) == 3.0
