# jaxrewrite: enable
"""At module level too, a block's head binds its name for the whole block: except, for, with, case."""
import contextlib

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


def fn(x, n: Static[int]):
    TRACES.append(n)
    return x * len(range(n))


def scale(x, n):
    return x * n


class Boxed(Exception):
    def __call__(self, x, n):
        return x * n


before = jax.jit(fn)  # the def: rewritten

try:
    raise Boxed()
except Boxed as fn:
    from_handler = jax.jit(fn)  # the exception: left alone

for fn in (scale,):
    from_loop = jax.jit(fn)  # scale: left alone

with contextlib.nullcontext(scale) as fn:
    from_with = jax.jit(fn)

match [scale]:
    case [fn]:
        from_case = jax.jit(fn)


def _check():
    for traced in (from_handler, from_loop, from_with, from_case):
        assert float(traced(2.0, jnp.asarray(3.0))) == 6.0  # an array n: only a traced n accepts it
    assert TRACES == []
    assert float(before(1.0, 3)) == 3.0
    assert float(before(2.0, 3)) == 6.0
    assert TRACES == [3]


_PLAIN_FAILS = True
