# https://github.com/jax-ml/jax/issues/5609 (jnp.zeros(nrows) with nrows traced)
import jax
import jax.numpy as jnp


@jax.jit
def coo_matvec(data, row, col, nrows, v):
    dv = data * v[col]
    return jnp.zeros(nrows, dtype=dv.dtype).at[row].add(dv)


def main():
    i = jnp.array([0, 1])
    return coo_matvec(jnp.ones(2), i, i, 2, jnp.ones(2))
