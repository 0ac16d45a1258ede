# jaxrewrite: enable
"""Unhashable statics not spelled as unhashable types: a literal default, a module class whose
__hash__ is None. Under transforms that hash nothing (vmap, grad, custom_vjp) nothing is said."""
import dataclasses

import jax
from jaxrewrite import Static


@dataclasses.dataclass
class Config:
    depth: int


@dataclasses.dataclass(frozen=True)
class Frozen:
    depth: int


@jax.jit
def f(
    x,
    dims: Static = [2, 2],
    table: Static = {},
    cfg: Static[Config] = None,
    ok: Static[Frozen] = None,
    fine: Static = (2, 2),
):
    return x


@jax.vmap
def mapped(x, dims: Static[list] = [2, 2]):
    return x


@jax.grad
def differentiated(x, opts: Static[dict]):
    return x
