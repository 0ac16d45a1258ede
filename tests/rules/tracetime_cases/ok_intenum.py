import enum
import jax, jax.numpy as jnp
class Level(enum.IntEnum):
    A = 1
@jax.jit
def f(x, level: Level):
    return x * level
def main():
    return f(jnp.ones(3), Level.A)
