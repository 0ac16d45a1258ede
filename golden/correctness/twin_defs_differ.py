# jaxrewrite: enable
"""Two defs of one name with different Static parameters: which one jax.jit gets is decided at run time."""
import sys

import jax
from jaxrewrite import Static

if sys.platform == "win32":
    def body(x, n: Static[int], m):
        return x * n * m
else:
    def body(x, n, m: Static[int]):
        return x * n * m

compiled = jax.jit(body)
