import jax, jax.numpy as jnp
@jax.jit
def f(xs):
    if xs:
        return xs[0] * 2
    return 0.0
def main():
    return f([jnp.ones(2)])
