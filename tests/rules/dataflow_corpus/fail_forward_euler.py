# https://github.com/jax-ml/jax/issues/25186 (range of an argument minus one, under jit)
import jax
import jax.numpy as jnp


@jax.jit
def forwardEuler(x0, nSteps, dt):
    x = x0
    for i in range(nSteps - 1):
        x = x + dt * jnp.cos(x)
    return x


def main():
    return forwardEuler(jnp.ones(3), 10, 0.1)
