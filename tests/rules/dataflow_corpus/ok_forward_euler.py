# https://github.com/jax-ml/jax/issues/25186 (the fix: nSteps static)
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(1,))
def forwardEuler(x0, nSteps, dt):
    x = x0
    for i in range(nSteps - 1):
        x = x + dt * jnp.cos(x)
    return x


def main():
    return forwardEuler(jnp.ones(3), 10, 0.1)
