import jax, jax.numpy as jnp
@jax.jit
def f(x, reps):
    return jnp.tile(x, reps)
def main():
    return f(jnp.ones(2), 3)
