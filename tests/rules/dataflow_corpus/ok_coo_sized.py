# https://github.com/jax-ml/jax/issues/5609 (the user's workaround: the size of an array argument)
import jax
import jax.numpy as jnp


@jax.jit
def coo_matvec(data, row, col, sized, v):
    assert v.ndim == 1
    dv = data * v[col]
    return jnp.zeros(sized.size, dtype=dv.dtype).at[row].add(dv)


def main():
    i = jnp.array([0, 1])
    return coo_matvec(jnp.ones(2), i, i, jnp.ones(2), jnp.ones(2))
