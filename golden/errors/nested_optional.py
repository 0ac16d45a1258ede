# jaxrewrite: enable
from typing import Optional

import jax
from jaxrewrite import Static


@jax.jit
def f(x, n: Optional[Static[int]] = None):
    return x
