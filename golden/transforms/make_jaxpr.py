# jaxrewrite: enable
"""jax.make_jaxpr: static_argnums from Static positions (positions only)."""
import jax
import jax.numpy as jnp
from jaxrewrite import Static


def body(x, n: Static[int]):
    for _ in range(n):
        x = x + 1.0
    return x


traced = jax.make_jaxpr(body)


@jax.make_jaxpr
def zeros(x, shape: Static[tuple]):
    return jnp.zeros(shape) + x


def _check():
    assert len(traced(1.0, 3).jaxpr.eqns) == 3
    assert zeros(1.0, (2, 3)).out_avals[0].shape == (2, 3)


_PLAIN_FAILS = True
