# jaxrewrite: enable
"""metadata=META: a name, whose value only JAX sees; the registration call site is refused too."""
import dataclasses

import jax
from jaxrewrite import Static

META = {"static": True}


@dataclasses.dataclass
class Params:
    weight: jax.Array
    mode: Static[str]
    steps: int = dataclasses.field(default=1, metadata=META)


jax.tree_util.register_dataclass(Params)
