# https://github.com/Physical-Intelligence/openpi/pull/550 (temperature static)
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="temperature")
def sample_token(rng, logits, temperature=0.0):
    if temperature > 0.0:
        return jax.random.categorical(rng, logits / temperature)
    return jnp.argmax(logits)


def main():
    return sample_token(jax.random.PRNGKey(0), jnp.array([0.1, 0.5, 0.4]), temperature=0.7)
