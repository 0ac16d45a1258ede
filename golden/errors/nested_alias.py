# jaxrewrite: enable
from typing import Optional

from jaxrewrite import Static

S = Static[int]


def f(x, n: Optional[S] = None):
    return x
