# https://github.com/jax-ml/jax/issues/953 (a NamedTuple of callables passed where jit traces)
from typing import Any, Callable, NamedTuple

import jax.numpy as jnp
from jax import jit


class Optimizer(NamedTuple):
    init: Callable[[Any], Any]
    update: Callable[[int, Any, Any], Any]
    get: Callable[[Any], Any]


def ddpg_episode(optimizer: Optimizer, x):
    return optimizer.get(optimizer.update(0, x, optimizer.init(x)))


def main():
    optimizer = Optimizer(lambda p: p, lambda i, g, s: s - g, lambda s: s)
    return jit(ddpg_episode)(optimizer, jnp.ones(2))
