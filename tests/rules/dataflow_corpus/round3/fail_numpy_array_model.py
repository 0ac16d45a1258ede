# https://github.com/pyro-ppl/numpyro/issues/570 (np.array of sampled values inside a traced model)
import jax
import jax.numpy as jnp
import numpy as np


def tpm(ran, params):
    return jnp.sum(params) * ran


def model(pos, eff, sig, mean_time):
    array = np.array([[pos, eff, sig, mean_time]], dtype=float)
    return tpm(jnp.arange(0, 100), array)


def main():
    return jax.jit(model)(10.0, 0.5, 1.0, 10.0)
