# jaxrewrite: enable
from dataclasses import dataclass

import jax
from jaxrewrite import Static


@dataclass
class P:
    x: jax.Array
    n: Static[int]


jax.tree_util.register_dataclass(P, data_fields=["x", "n"], meta_fields=[])
