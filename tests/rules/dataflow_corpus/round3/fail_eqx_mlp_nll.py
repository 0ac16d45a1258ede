# https://github.com/patrick-kidger/equinox/issues/570 (jax.jit(nll)(model, X, y) with an eqx.nn.MLP)
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np


def example():
    key = jax.random.PRNGKey(seed=0)
    model = eqx.nn.MLP(2, 1, 4, 3, key=key)
    X = np.random.randn(100, 2).astype(np.float32)
    y = np.random.randn(100, 1).astype(np.float32)

    def nll(model, X, y):
        yp = jax.vmap(model)(X)
        return jnp.mean((y - yp) ** 2)

    return jax.jit(nll)(model, X, y)


def main():
    return example()
