# https://github.com/jax-ml/jax/issues/4531 (sol_x[0:n_rob * nvar] with n_rob traced under jit)
import jax
import jax.numpy as jnp


def compute_x(n_rob, P, cost_mat_inv_x, lincost):
    nvar = jnp.shape(P)[1]
    sol_x = jnp.dot(cost_mat_inv_x, lincost)
    primal_sol_x = sol_x[0 : n_rob * nvar]
    return jnp.dot(P, primal_sol_x.reshape(n_rob, nvar).T).T


def main():
    P, inv, lin = jnp.ones((5, 2)), jnp.eye(4), jnp.ones(4)
    return jax.jit(compute_x)(2, P, inv, lin)
