# jaxrewrite: enable
"""Call sites: a transform called on a function of this module gets the same keywords."""
from functools import partial

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


def body(x, n: Static[int]):
    TRACES.append(n)
    return x * len(range(n))


def no_wraps(func):
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


plain = jax.jit(body)
donating = jax.jit(body, donate_argnums=0)
partial_form = partial(jax.jit, inline=True)(body)
wrapped = jax.jit(no_wraps(body))
checkpointed = jax.checkpoint(body)
mapped = jax.vmap(body)
nested = jax.jit(jax.vmap(body))


def build():
    return jax.jit(defined_later)  # defined below: resolved the way Python resolves it at call time


def defined_later(x, n: Static[int]):
    return x * len(range(n))


FUNCS = [body]
unresolved = jax.jit(FUNCS[0])  # not statically a def of this module: left alone


def _check():
    assert float(plain(1.0, 3)) == 3.0
    assert float(plain(2.0, 3)) == 6.0
    assert TRACES == [3]
    assert float(donating(jnp.ones(()), 2)) == 2.0
    assert float(partial_form(1.0, n=4)) == 4.0
    assert float(wrapped(1.0, 5)) == 5.0
    assert float(jax.grad(checkpointed)(1.0, 2)) == 2.0
    assert mapped(jnp.ones(2), 3).tolist() == [3.0, 3.0]
    assert nested(jnp.ones(2), 2).tolist() == [2.0, 2.0]
    assert float(build()(1.0, 6)) == 6.0


_PLAIN_FAILS = True
