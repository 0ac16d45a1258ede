import dataclasses
import jax, jax.numpy as jnp
@dataclasses.dataclass
class Config:
    scale: float
@jax.jit
def f(x, cfg: Config):
    return x * cfg.scale
def main():
    return f(jnp.ones(3), Config(2.0))
