# https://github.com/jax-ml/jax/issues/3696 (froystig: in_axes=(0, None))
import jax.numpy as jnp
from jax import nn, vmap


def main():
    return vmap(nn.one_hot, in_axes=(0, None))(jnp.array([2, 3, 4]), 5)
