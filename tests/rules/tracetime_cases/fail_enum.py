import enum
import jax, jax.numpy as jnp
class Mode(enum.Enum):
    A = 1
@jax.jit
def f(x, mode: Mode):
    return x
def main():
    return f(jnp.ones(3), Mode.A)
