# jaxrewrite: enable
"""NoDiff means "not differentiated", not "static": jit is left exactly as written."""
import jax
from jaxrewrite import NoDiff


@jax.jit
def f(x, scale: NoDiff[float]):
    return x * scale


def _check():
    assert float(f(2.0, 3.0)) == 6.0
