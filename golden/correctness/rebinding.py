# jaxrewrite: enable
"""A def rebound to a transform of itself (f = jax.jit(f)), or aliased, keeps its statics:
later transforms of the name get them as they would for the def."""
import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


def f(x, n: Static[int]):
    TRACES.append("f")
    return x * len(range(n))


f = jax.jit(f)
mapped = jax.vmap(f)
mapped_twice = jax.vmap(jax.vmap(f))
parallel = jax.pmap(f, in_axes=(0, None))
alias = f
mapped_alias = jax.vmap(alias)


def later():
    return jax.vmap(f)  # runs after the rebinding: the jitted def


def g(x, n):
    TRACES.append("g")
    return x * len(range(n))


g = jax.jit(g, static_argnums=(1,), static_argnames=("n",))


def _same(rewritten, by_hand, *args):
    TRACES.clear()
    got, _ = rewritten(*args), rewritten(*args)
    want, _ = by_hand(*args), by_hand(*args)
    assert got.tolist() == want.tolist()
    assert TRACES.count("f") == TRACES.count("g") == 1, TRACES


def _check():
    xb = jnp.ones((1, 2))
    _same(mapped, jax.vmap(g, in_axes=(0, None)), xb[0], 3)
    _same(mapped_twice, jax.vmap(jax.vmap(g, in_axes=(0, None)), in_axes=(0, None)), xb, 4)
    _same(parallel, jax.pmap(g, in_axes=(0, None), static_broadcasted_argnums=(1,)), xb, 3)
    _same(mapped_alias, jax.vmap(g, in_axes=(0, None)), xb[0], 5)
    _same(later(), jax.vmap(g, in_axes=(0, None)), xb[0], 6)


_PLAIN_FAILS = True
