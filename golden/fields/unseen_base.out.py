# jaxrewrite: enable
"""Static fields of classes whose base is in another module: jaxrewrite.field(static=True), which
Equinox and flax.struct both read, unless a value names the library; the user's values kept."""
from typing import Callable

import equinox as eqx
from flax import struct

from mypackage.models import BaseModel, BaseNode
from jaxrewrite import Static


class Model(BaseModel):
    act: Static[Callable] = __import__('equinox').field(static=True)
    depth: Static[int] = __import__('equinox').field(default=2, static=True)
    scale: Static[float] = eqx.field(converter=float, static=True)
    weight: object = None


class Node(BaseNode):
    size: Static[int] = struct.field(default=3, pytree_node=False)
    name: Static[str] = __import__('flax.struct').struct.field(default="node", pytree_node=False)


class Either(BaseModel):
    act: Static[Callable] = __import__('jaxrewrite').field(static=True)
    depth: Static[int] = __import__('jaxrewrite').field(default=2, static=True)
    names: Static[tuple] = __import__('jaxrewrite').field(static=True, default=())
    weight: object = None
