# https://github.com/jax-ml/jax/issues/3620 (mattjj's fix: lists, and static_argnums=(1,))
import jax.numpy as jnp
import numpy as np
from jax import jit as jjit


def pad_last_dim(array, pad_size):
    ndim = jnp.ndim(array)
    npad = [[0, 0] for _ in range(ndim)]
    npad[ndim - 1][1] = pad_size
    return jnp.pad(array, npad, "constant", constant_values=0)


def main():
    vals = np.random.randn(5, 10)
    return jjit(pad_last_dim, static_argnums=(1,))(vals, 1)
