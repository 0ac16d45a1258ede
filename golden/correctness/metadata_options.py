# jaxrewrite: enable
"""field(**opts): the metadata (or its absence) is only known at run time."""
from dataclasses import dataclass, field

import jax
from jaxrewrite import Static

opts = {"default": 1, "metadata": {"static": True}}


@jax.tree_util.register_dataclass
@dataclass
class Params:
    weight: jax.Array
    mode: Static[str]
    steps: int = field(**opts)
