# jaxrewrite: enable
"""Once both lists are given JAX stops inferring, so the user's own entries are completed too."""
from functools import partial

import jax
from jaxrewrite import Static

TRACES = []


@partial(jax.jit, static_argnames=("m",))
def f(x, m, n: Static[int]):
    TRACES.append((m, n))
    return x * len(range(m + n))


@partial(jax.jit, static_argnums=0)
def g(m, x, n: Static[int]):
    return x * len(range(m + n))


@partial(jax.jit, static_argnums=(-1,))  # JAX: the last positional argument *passed*
def h(x, n: Static[int], m):
    return x * len(range(m + n))


def _check():
    assert float(f(1.0, 2, 3)) == 5.0
    assert float(f(1.0, m=2, n=3)) == 5.0  # m by keyword is still static
    assert float(g(2, 1.0, 3)) == 5.0
    assert float(g(m=2, x=1.0, n=3)) == 5.0
    assert float(h(1.0, 2, 3)) == 5.0  # -1 is m here, as JAX resolves it per call
    try:
        h(1.0, n=2, m=3)  # -1 is x here: m is traced, exactly as without jaxrewrite
    except jax.errors.TracerIntegerConversionError:
        pass
    else:
        raise AssertionError("a negative static_argnums must keep JAX's per-call meaning")


_PLAIN_FAILS = True
