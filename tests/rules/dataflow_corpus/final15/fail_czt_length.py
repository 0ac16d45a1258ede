# https://github.com/chromatix-team/chromatix/pull/150 (the chirp z transform's arange of a traced length)
import jax
import jax.numpy as jnp


def czt(x, m):
    k = jnp.arange(m)
    w = jnp.exp(-2j * jnp.pi * k / m)
    return jnp.sum(x[: x.shape[0]] * w[: x.shape[0]])


def main():
    return jax.jit(czt)(jnp.ones(4), 8)
