# jaxrewrite: enable
"""Positional-only statics go to numbers only, keyword-only to names only, the rest to both."""
import jax
from jaxrewrite import Static

TRACES = []


@__import__('functools').partial(jax.jit, static_argnums=(0, 2), static_argnames=('r', 'k'))
def f(p: Static[int], /, x, r: Static[int] = 1, *args, k: Static[int], d=0.0, **kwargs):
    TRACES.append((p, r, k))
    return x * len(range(p + r + k)) + d + sum(args) + sum(kwargs.values())


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n', 'm'))
def defaults(x, n: Static[int] = 2, *, m: Static[int] = 3):
    return x * len(range(n + m))


def _check():
    assert float(f(1, 1.0, 2, k=3)) == 6.0
    assert float(f(1, 1.0, r=2, k=3)) == 6.0
    assert float(f(1, 1.0, 2, 10.0, k=3, extra=1.0)) == 17.0
    assert float(defaults(1.0)) == 5.0
    assert float(defaults(1.0, 1, m=1)) == 2.0
    assert float(defaults(1.0, n=4)) == 7.0


_PLAIN_FAILS = True
