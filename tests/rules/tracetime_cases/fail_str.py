import jax, jax.numpy as jnp
@jax.jit
def f(x, mode: str = "a"):
    return x + 1 if mode == "a" else x
def main():
    return f(jnp.ones(3), mode="b")
