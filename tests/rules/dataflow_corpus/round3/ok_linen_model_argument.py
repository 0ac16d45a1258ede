# https://github.com/google/flax/issues/853 (the module static: static_argnums)
from functools import partial

import flax.linen as nn
import jax
import jax.numpy as jnp


class Model(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
        return nn.Dense(self.features)(x)


@partial(jax.jit, static_argnums=0)
def eval_step(model, params, batch):
    return model.apply({"params": params}, batch)


def main():
    model = Model(3)
    x = jnp.ones((2, 4))
    params = model.init(jax.random.PRNGKey(0), x)["params"]
    return eval_step(model, params, x)
