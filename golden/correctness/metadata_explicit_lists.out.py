# jaxrewrite: enable
"""Both field lists given by the user: JAX reads no metadata, so a non-literal one is no obstacle."""
import dataclasses
from functools import partial

import jax
from jaxrewrite import Static


@partial(jax.tree_util.register_dataclass, data_fields=["weight"], meta_fields=('steps', 'mode'))
@dataclasses.dataclass
class Params:
    weight: jax.Array
    mode: Static[str]
    steps: int = dataclasses.field(default=1, metadata=dict(static=True))


TRACES = []


@jax.jit
def run(p: Params):
    TRACES.append(p.mode)
    return p.weight * len(range(p.steps)) * len(p.mode)


def _check():
    import jax.numpy as jnp

    assert float(run(Params(jnp.ones(()), "ab", 3))) == 6.0
    assert float(run(Params(jnp.ones(()) * 2, "ab", 3))) == 12.0
    assert TRACES == ["ab"]


_PLAIN_FAILS = True
