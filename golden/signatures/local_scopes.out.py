# jaxrewrite: enable
"""Local imports and shadowing: names resolve the way Python would resolve them."""
from jaxrewrite import Static


def make():
    import jax

    @__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
    def local_import(x, n: Static[int]):
        return x * len(range(n))

    return local_import


def shadowed(jax):
    # ``jax`` here is a parameter, not the module: this decorator is not jit and stays as is.
    @jax.jit
    def f(x, n: Static[int]):
        return x

    return f


def _check():
    assert float(make()(1.0, 3)) == 3.0
