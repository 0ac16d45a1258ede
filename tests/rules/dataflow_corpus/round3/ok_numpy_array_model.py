# https://github.com/pyro-ppl/numpyro/issues/570 (jnp.array keeps the sampled values traced)
import jax
import jax.numpy as jnp


def tpm(ran, params):
    return jnp.sum(params) * ran


def model(pos, eff, sig, mean_time):
    array = jnp.array([[pos, eff, sig, mean_time]], dtype=float)
    return tpm(jnp.arange(0, 100), array)


def main():
    return jax.jit(model)(10.0, 0.5, 1.0, 10.0)
