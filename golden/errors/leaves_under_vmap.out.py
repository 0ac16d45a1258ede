# jaxrewrite: enable
from typing import TypedDict

import jax
from jaxrewrite import Static


class Config(TypedDict):
    x: jax.Array
    n: Static[int]


@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.vmap_leaves, jax.vmap, leaves=(('cfg', 0, 'dict', ('n',)),))
def f(cfg: Config):
    return cfg["x"]
