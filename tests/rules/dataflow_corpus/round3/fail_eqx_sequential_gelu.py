# https://github.com/patrick-kidger/equinox/issues/706 (jax.value_and_grad over a Sequential holding Lambda(jax.nn.gelu))
import equinox as eqx
import jax
import jax.numpy as jnp


@eqx.filter_jit
def loss(model, x):
    y = jax.vmap(model)(x)
    return jnp.sum(y)


def main():
    key = jax.random.PRNGKey(42)
    model = eqx.nn.Sequential([eqx.nn.Linear(100, 1, key=key), eqx.nn.Lambda(jax.nn.gelu)])
    x = jax.random.normal(key, (1, 100))
    return jax.value_and_grad(loss)(model, x)
