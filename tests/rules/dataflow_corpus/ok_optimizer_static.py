# https://github.com/jax-ml/jax/issues/953 (the optimizer static: a NamedTuple of functions hashes)
from typing import Any, Callable, NamedTuple

import jax.numpy as jnp
from jax import jit


class Optimizer(NamedTuple):
    init: Callable[[Any], Any]
    update: Callable[[int, Any, Any], Any]
    get: Callable[[Any], Any]


def ddpg_episode(optimizer: Optimizer, x):
    return optimizer.get(optimizer.update(0, x, optimizer.init(x)))


def _init(p):
    return p


def _update(i, g, s):
    return s - g


def main():
    optimizer = Optimizer(_init, _update, _init)
    return jit(ddpg_episode, static_argnums=0)(optimizer, jnp.ones(2))
