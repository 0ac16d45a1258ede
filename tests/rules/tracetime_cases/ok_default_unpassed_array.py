import jax, jax.numpy as jnp
@jax.jit
def f(x, y: jax.Array):
    return jnp.where(y > 0, x, -x)
def main():
    return f(jnp.ones(3), jnp.ones(3))
