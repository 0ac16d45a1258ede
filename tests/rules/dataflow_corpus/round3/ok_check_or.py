# https://github.com/GalacticDynamics/galax/pull/692 (the PR's fix: jnp.logical_or under eqx.error_if)
import equinox as eqx
import jax
import jax.numpy as jnp


class Potential:
    def __init__(self, m, r_s):
        m = eqx.error_if(m, jnp.logical_or(m < 0, r_s < 0), "m and r_s must be positive")
        self.m = m
        self.r_s = r_s

    def potential(self, r):
        return -self.m / (r + self.r_s)


@jax.jit
def energy(m, r_s, r):
    return Potential(m, r_s).potential(r)


def main():
    return energy(jnp.array(1.0), jnp.array(2.0), jnp.array(3.0))
