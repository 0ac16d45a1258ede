# https://github.com/jax-ml/jax/issues/648 (random.randint's shape from a traced N)
import jax
from jax import random


@jax.jit
def sample(key, N):
    return random.randint(key, (N,), 0, 10)


def main():
    return sample(random.PRNGKey(0), 4)
