# jaxrewrite: enable
"""A literal metadata={"static": True} is read here: the field joins meta_fields with the Static ones."""
import dataclasses

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


@__import__('functools').partial(jax.tree_util.register_dataclass, data_fields=('weight', 'bias'), meta_fields=('mode', 'steps'))
@dataclasses.dataclass
class Params:
    weight: jax.Array
    mode: Static[str]
    steps: int = dataclasses.field(default=1, metadata={"static": True})
    bias: float = dataclasses.field(default=0.0, metadata={"static": False, "doc": "traced"})


@jax.jit
def run(p: Params, x):
    TRACES.append((p.mode, p.steps))
    for _ in range(p.steps):
        x = x * p.weight + p.bias
    return x if p.mode == "plain" else -x


def _check():
    assert float(run(Params(jnp.float32(2.0), "plain", 3), 1.0)) == 8.0
    assert float(run(Params(jnp.float32(3.0), "plain", 3, 1.0), 1.0)) == 40.0  # new leaves: no retrace
    assert TRACES == [("plain", 3)]
    assert float(run(Params(jnp.float32(2.0), "neg", 2), 1.0)) == -4.0
    assert len(TRACES) == 2
    assert len(jax.tree_util.tree_leaves(Params(jnp.float32(2.0), "plain", 3, 1.0))) == 2


_PLAIN_FAILS = True
