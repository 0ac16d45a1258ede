# jaxrewrite: enable
from functools import partial

import jax
from jaxrewrite import Static

donating = partial(jax.jit, donate_argnames="n")


@donating
def f(x, n: Static[int]):
    return x
