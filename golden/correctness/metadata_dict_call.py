# jaxrewrite: enable
"""metadata=dict(static=True) is not a literal: JAX reads it at run time, so no field list can be written."""
import dataclasses

import jax
from jaxrewrite import Static


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Params:
    weight: jax.Array
    mode: Static[str]
    steps: int = dataclasses.field(default=1, metadata=dict(static=True))
