# https://github.com/patrick-kidger/diffrax/issues/379 ("it works" once max_steps is not a traced argument)
from functools import partial

import equinox.internal as eqxi
import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="max_steps")
def solve(y0, max_steps):
    def cond(carry):
        return carry[0] < 10

    def body(carry):
        return (carry[0] + 1, carry[1] * 0.9)

    return eqxi.while_loop(cond, body, (0, y0), max_steps=max_steps, kind="checkpointed")


def main():
    return solve(jnp.array(1.0), 16)
