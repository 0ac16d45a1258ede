# jaxrewrite: enable
"""``from jaxrewrite import Static as S`` and bare ``Static`` (meaning Static[Any])."""
import jax
from jaxrewrite import Static
from jaxrewrite import Static as S


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
def renamed(x, n: S[int]):
    return x * len(range(n))


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('op',))
def bare(x, op: Static):
    return op(x)


def _check():
    assert float(renamed(2.0, 3)) == 6.0
    assert float(bare(2.0, abs)) == 2.0  # a function is only usable static


_PLAIN_FAILS = True
