# https://github.com/ShaneFlandermeyer/tdmpc2-jax/issues/8 (train static)
from functools import partial

import flax.linen as nn
import jax
import jax.numpy as jnp


class QNet(nn.Module):
    @nn.compact
    def __call__(self, x, train: bool):
        x = nn.Dense(4)(x)
        x = nn.BatchNorm(use_running_average=not train)(x)
        return nn.Dense(1)(x)


model = QNet()


@partial(jax.jit, static_argnames="train")
def q_value(variables, z, a, train):
    za = jnp.concatenate([z, a], axis=-1)
    out, _ = model.apply(variables, za, train=train, mutable=["batch_stats"])
    return out


def main():
    z, a = jnp.ones((8, 3)), jnp.ones((8, 2))
    variables = model.init(jax.random.PRNGKey(0), jnp.ones((8, 5)), train=False)
    return q_value(variables, z, a, True)
