# jaxrewrite: enable
"""JAX hashes static arguments: these types cannot be hashed, so every call would fail."""
from typing import Annotated, Dict, List

import jax
import numpy as np

import jaxrewrite
from jaxrewrite import Static

Shape = Static[list]


@jax.jit
def f(
    x,
    a: Static[list[int]],
    b: Static[Dict[str, int]],
    c: Annotated[set, jaxrewrite.STATIC],
    d: Static[jax.Array],
    e: Static[np.ndarray],
    g: "Static[List[int]]",
    h: Shape,
    ok: Static[tuple[int, ...]],
    also_ok: Static[frozenset],
):
    return x
