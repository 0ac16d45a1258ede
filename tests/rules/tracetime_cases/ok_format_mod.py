import jax, jax.numpy as jnp
@jax.jit
def f(x, n):
    label = "n=%s" % n
    return x + len(label)
def main():
    return f(jnp.ones(2), 3)
