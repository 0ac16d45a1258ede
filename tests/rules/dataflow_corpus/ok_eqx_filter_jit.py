# https://github.com/patrick-kidger/equinox/pull/239 (the FAQ's fix: eqx.filter_jit)
import equinox as eqx
import jax


def loss_fn(model, x, y):
    return (model(x) - y) ** 2


def main():
    model = eqx.nn.Lambda(jax.nn.relu)
    return eqx.filter_jit(loss_fn)(model, 0, 0)
