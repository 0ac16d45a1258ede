# https://github.com/patrick-kidger/equinox/issues/154 (the thread's code: apply_act is a static field)
import equinox as eqx
import jax
import jax.numpy as jnp


class LinearAndActivation(eqx.Module):
    m: eqx.Module
    apply_act: bool = eqx.field(static=True)

    def __init__(self, n_in, n_out, apply_act, key):
        self.m = eqx.nn.Linear(n_in, n_out, key=key)
        self.apply_act = apply_act

    @jax.jit
    def __call__(self, x):
        x = self.m(x)
        if self.apply_act:
            x = jax.nn.relu(x)
        return x


def main():
    layer = LinearAndActivation(2, 3, True, jax.random.PRNGKey(0))
    return layer(jnp.ones(2))
