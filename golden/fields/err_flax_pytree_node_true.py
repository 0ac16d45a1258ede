# jaxrewrite: enable
from flax import struct
from jaxrewrite import Static


class Node(struct.PyTreeNode):
    n: Static[int] = struct.field(True, default=3)
