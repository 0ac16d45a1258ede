# jaxrewrite: enable
"""No transform, no rewrite: functional TypedDict/NamedTuple annotations and Callable markers are no error."""
import collections.abc
import typing
from typing import Callable, NamedTuple, TypedDict

import jax
from jaxrewrite import Static

Config = TypedDict("Config", {"x": jax.Array, "steps": Static[int]}, total=False)
Layer = NamedTuple("Layer", [("w", jax.Array), ("act", Static[str])])
Fn = Callable[[jax.Array, Static[int]], jax.Array]
AbcFn = collections.abc.Callable[[jax.Array, Static[int]], jax.Array]


def describe(cfg: Config, layer: "Layer"):
    return sorted(cfg), layer.act


def apply(f: Fn, g: AbcFn, h: typing.Callable[[Static[int]], int], x):
    return f(x, 2) + g(x, 1) + h(1)


def _check():
    assert describe({"x": 1.0, "steps": 2}, Layer(1.0, "relu")) == (["steps", "x"], "relu")
    assert apply(lambda x, n: x * n, lambda x, n: x + n, lambda n: n, 1.0) == 5.0
