# jaxrewrite: enable
import dataclasses

from equinox import Module
from jaxrewrite import Static


class Model(Module):
    n: Static[int] = dataclasses.field(default=3, metadata={"static": False})
