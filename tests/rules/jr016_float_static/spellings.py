# jaxrewrite: enable
"""JR016 reads the type under the marker however it is spelled: a string under the marker, a
whole-string annotation, builtins.float, Annotated[float, STATIC], an alias; Annotated[float,
Static] is no marker (JR008 says so), and a Static float field has no transform in sight."""

import builtins
from typing import Annotated

import equinox as eqx
import jax

from jaxrewrite import STATIC, Static

LearningRate = Static[float]


@jax.jit
def quoted(x, lr: Static["float"]):
    return x * lr


@jax.jit
def whole(x, lr: "Static[float]"):
    return x * lr


@jax.jit
def qualified(x, lr: Static[builtins.float], rate: Static["builtins.float"]):
    return x * lr * rate


@jax.jit
def annotated(x, lr: Annotated[float, STATIC]):
    return x * lr


@jax.jit
def aliased(x, lr: LearningRate):
    return x * lr


@jax.jit
def metadata(x, lr: Annotated[float, Static]):
    return x * lr


class Model(eqx.Module):
    scale: Static[float]
