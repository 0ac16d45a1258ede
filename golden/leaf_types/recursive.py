# jaxrewrite: enable
"""A TypedDict that holds itself: the split is fixed when wrapped, so it cannot follow it."""
from typing import Optional, TypedDict

import jax
from jaxrewrite import Static


class Tree(TypedDict):
    n: Static[int]
    child: Optional["Tree"]


@jax.jit
def depth(t: Tree):
    return t["n"]
