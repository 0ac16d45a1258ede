import jax, jax.numpy as jnp
@jax.jit
def f(x, cfg):
    if cfg:
        return x * cfg["scale"]
    return x
def main():
    return f(jnp.ones(3), {"scale": 2.0})
