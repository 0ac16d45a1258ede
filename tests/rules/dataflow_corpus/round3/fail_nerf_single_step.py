# https://github.com/codestella/putting-nerf-on-a-diet/pull/11 (jit(single_step): a Linen model and N_samples traced)
import flax.linen as nn
import jax
import jax.numpy as jnp
from jax import jit


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(1)(x)


def single_step_wojit(params, rays, model, N_samples):
    t = jnp.linspace(0.0, 1.0, N_samples)
    pts = rays[:, None] * t[None, :]
    return model.apply(params, pts[..., None]).sum()


def main():
    model = MLP()
    rays = jnp.ones((2,))
    params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 1)))
    single_step = jit(single_step_wojit)
    return single_step(params, rays, model, 8)
