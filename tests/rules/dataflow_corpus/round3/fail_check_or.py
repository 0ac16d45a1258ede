# https://github.com/GalacticDynamics/galax/pull/692 (a Python `or` over traced checks in a constructor run under jit)
import jax
import jax.numpy as jnp


class Potential:
    def __init__(self, m, r_s):
        if m < 0 or r_s < 0:
            raise ValueError("m and r_s must be positive")
        self.m = m
        self.r_s = r_s

    def potential(self, r):
        return -self.m / (r + self.r_s)


@jax.jit
def energy(m, r_s, r):
    return Potential(m, r_s).potential(r)


def main():
    return energy(jnp.array(1.0), jnp.array(2.0), jnp.array(3.0))
