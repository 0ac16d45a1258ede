import jax, jax.numpy as jnp
@jax.jit
def f(x):
    with jax.ensure_compile_time_eval():
        n = 3
        for _ in range(n):
            x = x + 1
    return x
def main():
    return f(jnp.ones(3))
