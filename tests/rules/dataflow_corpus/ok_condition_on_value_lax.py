# https://apxml.com/courses/getting-started-with-jax/chapter-2-accelerating-functions-jit/jit-common-pitfalls (the page's fix: branches as inner functions under lax.cond)
import jax
import jax.numpy as jnp
from jax import lax


def condition_on_value_lax(x):
    def true_fun(operand):
        return operand * 2

    def false_fun(operand):
        return operand / 2

    return lax.cond(x > 0, true_fun, false_fun, x)


def main():
    jitted_condition = jax.jit(condition_on_value_lax)
    return jitted_condition(jnp.array(5.0))
