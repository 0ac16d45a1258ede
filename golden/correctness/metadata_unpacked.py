# jaxrewrite: enable
"""metadata={**base, "static": True}: a dict display, but not a literal."""
from dataclasses import dataclass, field
from functools import partial

import jax
from jax.tree_util import register_dataclass
from jaxrewrite import Static

base = {"doc": "number of steps"}


@partial(register_dataclass, drop_fields=[])
@dataclass
class Params:
    weight: jax.Array
    mode: Static[str]
    steps: int = field(default=1, metadata={**base, "static": False})
