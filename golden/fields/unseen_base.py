# jaxrewrite: enable
"""Static fields of classes whose base is in another module: jaxrewrite.field(static=True), which
Equinox and flax.struct both read, unless a value names the library; the user's values kept."""
from typing import Callable

import equinox as eqx
from flax import struct

from mypackage.models import BaseModel, BaseNode
from jaxrewrite import Static


class Model(BaseModel):
    act: Static[Callable]
    depth: Static[int] = 2
    scale: Static[float] = eqx.field(converter=float)
    weight: object = None


class Node(BaseNode):
    size: Static[int] = struct.field(default=3)
    name: Static[str] = "node"


class Either(BaseModel):
    act: Static[Callable]
    depth: Static[int] = 2
    names: Static[tuple] = __import__('jaxrewrite').field(static=True, default=())
    weight: object = None
