# https://github.com/jkitchin/pounce/pull/796 (the bounds kept as jnp arrays)
import jax
import jax.numpy as jnp


def expand_bounds(lb, n):
    lb = jnp.asarray(lb, dtype=float)
    return jnp.where(jnp.isinf(lb), -1e20, lb) if lb.shape else jnp.full(n, lb)


@jax.jit
def solve_qp(c, lb):
    bounds = expand_bounds(lb, c.shape[0])
    return jnp.maximum(-c, bounds)


def main():
    return solve_qp(jnp.array([-1.0, 2.0]), jnp.array([-10.0, -10.0]))
