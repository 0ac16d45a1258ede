# jaxrewrite: enable
"""Every way to name flax.nnx.jit, as for jax.jit: the attribute after ``from flax import nnx``,
a module alias, from-imports (renamed too), the package path, partial, a partial alias, NNX's own
decorator-factory style and a call site."""
from functools import partial

import pytest

# The golden tests also run without flax, with flax older than 0.10.1, and where flax.nnx does
# not import (flax 0.10.4 beside jax 0.4.30, a pair its metadata allows): skipped there.
pytest.importorskip("flax", minversion="0.10.1")
try:
    from flax import nnx
except ImportError as err:
    pytest.skip(f"flax.nnx does not import: {err}", allow_module_level=True)

import flax
import flax.nnx as fnnx
from flax.nnx import jit
from flax.nnx import jit as nnx_jit
from jaxrewrite import Static

TRACES = []
inlined = partial(nnx.jit, inline=True)


@__import__('functools').partial(nnx.jit, static_argnums=(1,), static_argnames=('n',))
def a(x, n: Static[int]):
    TRACES.append(("a", n))
    return x * len(range(n))


@__import__('functools').partial(fnnx.jit, static_argnums=(1,), static_argnames=('n',))
def b(x, n: Static[int]):
    TRACES.append(("b", n))
    return x * len(range(n))


@__import__('functools').partial(jit, static_argnums=(1,), static_argnames=('n',))
def c(x, n: Static[int]):
    TRACES.append(("c", n))
    return x * len(range(n))


@__import__('functools').partial(nnx_jit, static_argnums=(1,), static_argnames=('n',))
def d(x, n: Static[int]):
    TRACES.append(("d", n))
    return x * len(range(n))


@__import__('functools').partial(flax.nnx.jit, static_argnums=(1,), static_argnames=('n',))
def e(x, n: Static[int]):
    TRACES.append(("e", n))
    return x * len(range(n))


@partial(nnx.jit, static_argnames=('n', 'm'), static_argnums=(1, 2))
def f(x, n: Static[int], m: int = 1):
    TRACES.append(("f", n))
    return x * len(range(n)) * m


@__import__('functools').partial(inlined, static_argnums=(1,), static_argnames=('n',))
def g(x, n: Static[int]):
    TRACES.append(("g", n))
    return x * len(range(n))


@nnx.jit(keep_unused=True, static_argnums=(1,), static_argnames=('n',))
def h(x, n: Static[int]):
    TRACES.append(("h", n))
    return x * len(range(n))


def body(x, n: Static[int]):
    TRACES.append(("i", n))
    return x * len(range(n))


i = nnx.jit(body, static_argnums=(1,), static_argnames=('n',))


def _check():
    for func in (a, b, c, d, e, f, g, h, i):
        assert float(func(1.0, 3)) == 3.0
        assert float(func(2.0, 3)) == 6.0  # the same static value: no new trace
        assert float(func(1.0, n=2)) == 2.0  # by keyword: static by name too
    assert [name for name, _ in TRACES] == [name for name in "abcdefghi" for _ in (3, 2)]
    assert [n for _, n in TRACES] == [3, 2] * 9


_PLAIN_FAILS = True
