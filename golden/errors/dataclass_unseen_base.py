# jaxrewrite: enable
from dataclasses import dataclass

import jax
from jaxrewrite import Static
from somewhere import Base


@jax.tree_util.register_dataclass
@dataclass
class P(Base):
    n: Static[int]
