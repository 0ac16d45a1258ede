# jaxrewrite: enable
"""pmap decorators: positions go to static_broadcasted_argnums; a literal in_axes keeps its entries."""
from functools import partial

import jax
import jax.numpy as jnp
from jaxrewrite import Static


@__import__('functools').partial(jax.pmap, static_broadcasted_argnums=(1,))
def scale(x, n: Static[int]):
    return x * len(range(n))


@partial(jax.pmap, in_axes=(0, None), axis_name="i", static_broadcasted_argnums=(1,))
def total(x, n: Static[int]):
    return jax.lax.psum(x, "i") * len(range(n))


def _check():
    d = jax.local_device_count()
    assert d >= 2
    assert scale(jnp.ones(d), 3).tolist() == [3.0] * d
    assert total(jnp.ones(d), 2).tolist() == [2.0 * d] * d


_PLAIN_FAILS = True
