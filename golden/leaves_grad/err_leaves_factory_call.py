# jaxrewrite: enable
from typing import TypedDict

import jax
from jaxrewrite import Static


class Config(TypedDict):
    x: jax.Array
    n: Static[int]


def f(cfg: Config):
    return cfg["x"]


inline_jit = jax.jit(inline=True)
fast = inline_jit(f)
