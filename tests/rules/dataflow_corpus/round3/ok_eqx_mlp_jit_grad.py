# https://github.com/patrick-kidger/equinox/issues/361 (the filtered transformations)
import equinox as eqx
import jax
import jax.numpy as jnp


@eqx.filter_jit
@eqx.filter_grad
def loss_fn(model, x, y):
    pred_y = jax.vmap(model)(x)
    return jax.numpy.mean((y - pred_y) ** 2)


def main():
    key = jax.random.PRNGKey(0)
    model_mlp = eqx.nn.MLP(2, 3, 8, 2, key=key)
    x = jnp.zeros((32, 2))
    y = jnp.zeros((32, 3))
    return loss_fn(model_mlp, x, y)
