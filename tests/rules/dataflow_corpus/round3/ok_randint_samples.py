# https://github.com/jax-ml/jax/issues/648 (hawkinsp: make N a static argument)
from functools import partial

import jax
from jax import random


@partial(jax.jit, static_argnums=1)
def sample(key, N):
    return random.randint(key, (N,), 0, 10)


def main():
    return sample(random.PRNGKey(0), 4)
