# https://github.com/jax-ml/jax/pull/23860 (the error message's fix: mark the str argument static)
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def f(x, mode):
    return x if mode == 'foo' else -x


def main():
    return f(jnp.ones(2), 'foo')
