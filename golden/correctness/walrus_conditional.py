# jaxrewrite: enable
"""A walrus after ``and`` may not run: fn is the def or scale, so the call site cannot be spelled."""
import os

import jax
from jaxrewrite import Static


def fn(x, n: Static[int]):
    return x * len(range(n))


def scale(x, n):
    return x * n


chosen = os.environ.get("SCALE") and (fn := scale)
compiled = jax.jit(fn)
