# jaxrewrite: enable
"""The ledger: every marker ends applied, refused or reported; these do nothing, so each is reported."""
from typing import Annotated, NamedTuple

import jax

from jaxrewrite import STATIC, NoDiff, Static

SInt = Static[int]  # used below: applied, no finding
Unused = Static[float]  # no annotation here uses it, and importing it elsewhere does nothing


class Cfg(NamedTuple):
    n: Static[int]  # split by 'split' below: applied
    m: int


class Loose(NamedTuple):
    k: Static[int]  # no transformed def takes a Loose: does nothing


@jax.jit
def split(x, cfg: Cfg, a: SInt, b: Annotated[int, STATIC]):
    total: Static[int] = 3  # a variable's annotation: nothing reads it
    return x * cfg.n * a * b * total


@jax.jit
def metadata(x, k: Annotated[int, Static, "doc"]):  # the marker type as metadata is not read
    return x * k


@jax.jit
def nodiff_under_jit(x, d: NoDiff[float]):  # jit does not read NoDiff
    return x * d
