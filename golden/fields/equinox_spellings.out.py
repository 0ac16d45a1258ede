# jaxrewrite: enable
"""Equinox spelled every way (from-imports, a module alias, a base alias) and inherited: a subclass
of a Module of this module is one, and each class's own fields are completed on their own, as
Equinox reads static per field when the class is created."""
import pytest

pytest.importorskip("equinox")

import equinox
import jax
import jax.numpy as jnp
from equinox import Module, field as eqx_field
from jaxrewrite import Static as S

Base = equinox.Module


class Counter(Module):
    w: jax.Array
    n: int = 1


class Repeat(Counter):
    n: S[int] = __import__('equinox').field(default=3, static=True)
    label: S[str] = eqx_field(default="r", static=True)


class Again(Repeat):
    times: "S[int]" = equinox.field(default=2, static=True)


class Aliased(Base):
    k: S[int] = __import__('equinox').field(static=True)


def _check():
    assert len(jax.tree_util.tree_leaves(Counter(jnp.ones(2)))) == 2  # n is a leaf here
    assert len(jax.tree_util.tree_leaves(Repeat(jnp.ones(2)))) == 1  # and static here
    again = Again(jnp.ones(2))
    assert jax.tree_util.tree_leaves(again)[0].shape == (2,) and len(jax.tree_util.tree_leaves(again)) == 1
    assert jax.tree_util.tree_leaves(Aliased(4)) == []
    seen = []

    @jax.jit
    def run(m):
        seen.append(m.n * m.times)
        return m.w * m.n * m.times

    assert float(run(again)[0]) == 6.0 and float(run(again)[1]) == 6.0 and seen == [6]


_PLAIN_FAILS = True
