# jaxrewrite: enable
from typing import TypedDict

import jax
from jaxrewrite import Static


class Config(TypedDict):
    x: jax.Array
    n: Static[int]


@jax.checkpoint
def f(cfg: Config):
    return cfg["x"]
