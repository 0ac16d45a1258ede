# jaxrewrite: enable
"""ClassVar and InitVar written as strings are not dataclass fields: they stay out of the field lists."""
import dataclasses
import typing
from dataclasses import InitVar
from typing import ClassVar

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


@__import__('functools').partial(jax.tree_util.register_dataclass, data_fields=('weight',), meta_fields=('steps',))
@dataclasses.dataclass
class Params:
    scale: "ClassVar[float]" = 2.0
    limit: "typing.ClassVar[int]" = 10
    weight: jax.Array = None
    steps: Static[int] = 1
    offset: "InitVar[float]" = 0.0
    shift: "dataclasses.InitVar[float]" = 0.0

    def __post_init__(self, offset, shift):
        if offset or shift:
            self.weight = self.weight + offset + shift


@jax.jit
def run(p: Params, x):
    TRACES.append(p.steps)
    for _ in range(min(p.steps, p.limit)):
        x = x * p.weight * p.scale
    return x


def _check():
    assert float(run(Params(weight=jnp.float32(1.0), steps=2), 1.0)) == 4.0
    assert float(run(Params(weight=jnp.float32(0.5), steps=2, offset=0.5), 1.0)) == 4.0  # no retrace
    assert TRACES == [2]
    assert jax.tree_util.tree_leaves(Params(weight=jnp.float32(1.0), steps=3)) == [1.0]


_PLAIN_FAILS = True
