# jaxrewrite: enable
"""jaxrewrite.Static[...] and jr.Static[...] through module imports."""
import jax
import jaxrewrite
import jaxrewrite as jr

TRACES = []


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
def by_module(x, n: jaxrewrite.Static[int]):
    TRACES.append(("module", n))
    return x * len(range(n))


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
def by_alias(x, n: jr.Static[int]):
    TRACES.append(("alias", n))
    return x * len(range(n))


def _check():
    assert float(by_module(2.0, 3)) == 6.0
    assert float(by_alias(2.0, 4)) == 8.0
    by_module(1.0, 3)
    by_alias(1.0, 4)
    assert TRACES == [("module", 3), ("alias", 4)]


_PLAIN_FAILS = True
