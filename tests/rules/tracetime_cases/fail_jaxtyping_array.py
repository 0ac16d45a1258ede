import jax, jax.numpy as jnp, jaxtyping
@jax.jit
def f(x: jaxtyping.Array):
    if x.sum() > 0:
        return x * 2
    return x
def main():
    return f(jnp.ones(3))
