# https://github.com/patrick-kidger/equinox/issues/1127 (eqx.filter_jit)
import equinox as eqx
import jax
import jax.numpy as jnp


@eqx.filter_jit
def f(model, x):
    return model(x)


def main():
    m1 = eqx.nn.MLP(4, 4, 64, 2, jax.nn.gelu, key=jax.random.key(0))
    return f(m1, jnp.arange(4.0))
