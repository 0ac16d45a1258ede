# https://github.com/google/flax/issues/4085 (training static for the jit)
from functools import partial

import flax.linen as nn
import jax
import jax.numpy as jnp


class DNN(nn.Module):
    @nn.compact
    def __call__(self, x, training):
        x = nn.Dense(4)(x)
        x = nn.Dropout(rate=0.5, deterministic=not training)(x)
        return nn.Dense(1)(x)


model = DNN()


def mse(params, X, y, training):
    y_pred = model.apply(params, X, training, rngs={"dropout": jax.random.PRNGKey(114)})
    return jnp.mean((y_pred - y) ** 2)


@partial(jax.jit, static_argnames="training")
def train_step(params, X, y, training):
    return jax.value_and_grad(mse)(params, X, y, training)


def main():
    X, y = jnp.ones((8, 3)), jnp.ones((8, 1))
    params = model.init(jax.random.PRNGKey(0), X, False)
    return train_step(params, X, y, True)
