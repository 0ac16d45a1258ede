# jaxrewrite: enable
"""No findings: every marker takes effect; aliases and is_static are not findings."""
import jax

import jaxrewrite
from jaxrewrite import Static

S = Static[int]


@jax.jit
def f(x, n: S, *, mode: Static[str] = "sum"):
    return x


assert jaxrewrite.is_static(f, "n")
