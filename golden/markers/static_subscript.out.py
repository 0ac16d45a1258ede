# jaxrewrite: enable
"""Static[T] imported by name: the seed's spelling."""
import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
def repeat_add(x, n: Static[int]):
    TRACES.append(n)
    for _ in range(n):  # a traced n could not drive range()
        x = x + 1
    return x


def _check():
    assert int(repeat_add(jnp.int32(0), 3)) == 3
    assert int(repeat_add(jnp.int32(5), 3)) == 8  # same static value: no retrace
    assert TRACES == [3]
    assert int(repeat_add(jnp.int32(0), n=2)) == 2  # by keyword too
    assert TRACES[-1] == 2


_PLAIN_FAILS = True
