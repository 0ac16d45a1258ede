# https://github.com/jax-ml/jax/pull/689 (@jit feature_map(n, d): random.normal(key, (d, n)) with n, d traced)
from jax import jit, random


@jit
def feature_map(n, d, sigma=1.0, seed=123):
    key = random.PRNGKey(seed)
    W = random.normal(key, (d, n)) / sigma
    return W


def main():
    return feature_map(5, 3)
