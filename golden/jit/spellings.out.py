# jaxrewrite: enable
"""Every way to name jit: attribute, from-import, renamed, module alias, JAX's own submodules."""
import jax
import jax as j
from jax import jit
from jax import jit as compile_it
from jax._src import api
from jaxrewrite import Static

TRACES = []


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
def a(x, n: Static[int]):
    TRACES.append("a")
    return x * len(range(n))


@__import__('functools').partial(jit, static_argnums=(1,), static_argnames=('n',))
def b(x, n: Static[int]):
    TRACES.append("b")
    return x * len(range(n))


@__import__('functools').partial(compile_it, static_argnums=(1,), static_argnames=('n',))
def c(x, n: Static[int]):
    TRACES.append("c")
    return x * len(range(n))


@__import__('functools').partial(j.jit, static_argnums=(1,), static_argnames=('n',))
def d(x, n: Static[int]):
    TRACES.append("d")
    return x * len(range(n))


@__import__('functools').partial(api.jit, static_argnums=(1,), static_argnames=('n',))
def e(x, n: Static[int]):
    TRACES.append("e")
    return x * len(range(n))


def _check():
    for func in (a, b, c, d, e):
        assert float(func(1.0, 3)) == 3.0
        assert float(func(2.0, 3)) == 6.0
    assert TRACES == ["a", "b", "c", "d", "e"]


_PLAIN_FAILS = True
