import jax, jax.numpy as jnp
@jax.jit
def f(x: jax.Array, y):
    out = jnp.zeros(x.shape) + jnp.ones(len(x))
    for _ in range(x.ndim):
        out = out + 1
    if y is None:
        return out
    return out * y
def main():
    return f(jnp.ones(3), None)
