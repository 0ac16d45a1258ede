# https://github.com/patrick-kidger/diffrax/issues/379 (max_steps passed as a jit argument into a checkpointed while loop)
import equinox.internal as eqxi
import jax
import jax.numpy as jnp


@jax.jit
def solve(y0, max_steps):
    def cond(carry):
        return carry[0] < 10

    def body(carry):
        return (carry[0] + 1, carry[1] * 0.9)

    return eqxi.while_loop(cond, body, (0, y0), max_steps=max_steps, kind="checkpointed")


def main():
    return solve(jnp.array(1.0), 16)
