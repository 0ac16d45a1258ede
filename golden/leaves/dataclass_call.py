# jaxrewrite: enable
"""register_dataclass as a call, with user lists merged, and inheritance inside the module."""
from dataclasses import dataclass, field
from functools import partial

import jax
import jax.numpy as jnp
from jax.tree_util import register_dataclass
from jaxrewrite import Static


@dataclass
class Base:
    x: jax.Array
    mode: Static[str]


@dataclass
class Child(Base):
    y: jax.Array
    depth: int = field(default=1, metadata={"static": True})  # JAX's own spelling counts too


register_dataclass(Base)
register_dataclass(Child, data_fields=["x", "y"], meta_fields=["depth"])


@partial(register_dataclass, data_fields=["a"], meta_fields=[])
@dataclass
class Partial:
    a: jax.Array
    k: Static[int]


@jax.jit
def f(c: Child, p: Partial):
    return (c.x + c.y) * len(range(c.depth)) * len(c.mode) + p.a * p.k


def _check():
    out = f(Child(jnp.float32(1.0), "ab", jnp.float32(2.0), 3), Partial(jnp.float32(1.0), 2))
    assert float(out) == 20.0
    assert jax.tree_util.tree_leaves(Base(jnp.float32(1.0), "m")) == [1.0]


_PLAIN_FAILS = True
