# jaxrewrite: enable
from typing import TypedDict

import jax
from jaxrewrite import Static


class Config(TypedDict):
    x: jax.Array
    n: Static[int]


@(lambda fun: __import__('jaxrewrite.leaves').leaves.vmap_leaves(jax.vmap, fun, (('cfg', 0, 'dict', ('n',)),), in_axes=(0,)))
def f(cfg: Config):
    return cfg["x"]
