# https://github.com/jax-ml/jax/issues/3654 (num_actions static)
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def train(replay_elements, num_actions):
    replay_action_one_hot = jax.nn.one_hot(replay_elements["action"], num_actions)
    return jnp.sum(replay_action_one_hot, axis=0)


def main():
    return train({"action": jnp.array([0, 1, 1])}, 3)
