# https://github.com/jkitchin/pounce/pull/796 (bounds read with NumPy: a jnp lb under jax.jit is a tracer)
import jax
import jax.numpy as jnp
import numpy as np


def expand_bounds(lb, n):
    lb = np.asarray(lb, dtype=float)
    return np.where(np.isinf(lb), -1e20, lb) if lb.shape else np.full(n, lb)


@jax.jit
def solve_qp(c, lb):
    bounds = expand_bounds(lb, c.shape[0])
    return jnp.maximum(-c, bounds)


def main():
    return solve_qp(jnp.array([-1.0, 2.0]), jnp.array([-10.0, -10.0]))
