# https://github.com/PlasmaControl/DESC/pull/998 (if dr == 0 on a traced argument under jit(jacrev))
import jax
import jax.numpy as jnp


def zernike_radial(r, l, m, dr):
    if dr == 0:
        return jnp.sum(r ** l * m)
    return jnp.sum(l * r ** (l - 1) * m)


def main():
    r = jnp.linspace(0.1, 1.0, 4)
    return jax.jit(jax.jacrev(zernike_radial))(r, 2.0, 1.0, 0)
