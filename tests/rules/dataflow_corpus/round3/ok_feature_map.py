# https://github.com/jax-ml/jax/pull/689 (n and d static)
from functools import partial

from jax import jit, random


@partial(jit, static_argnums=(0, 1))
def feature_map(n, d, sigma=1.0, seed=123):
    key = random.PRNGKey(seed)
    W = random.normal(key, (d, n)) / sigma
    return W


def main():
    return feature_map(5, 3)
