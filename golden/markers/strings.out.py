# jaxrewrite: enable
"""String annotations are read like the expressions they hold."""
import jax
from jaxrewrite import Static


@__import__('functools').partial(jax.jit, static_argnums=(1, 2), static_argnames=('n', 'm'))
def f(x, n: "Static[int]", m: 'Static'):
    return x * len(range(n + m))


def _check():
    assert float(f(1.0, 2, 3)) == 5.0


_PLAIN_FAILS = True
