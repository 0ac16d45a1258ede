# jaxrewrite: enable
"""Static entries of a TypedDict or NamedTuple inside another one, to any depth."""
from typing import NamedTuple, Optional, TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import NoDiff, Static

TRACES = []


class Inner(TypedDict):
    x: jax.Array
    n: Static[int]
    m: NoDiff[jax.Array]


class Outer(TypedDict):
    inner: Inner
    k: Static[int]


class Leg(NamedTuple):
    x: jax.Array
    n: Static[int]


class Body(NamedTuple):
    leg: Leg
    outer: Optional[Outer]


@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.static_leaves, jax.jit, leaves=(('b', 0, 'namedtuple', (('leg', 'namedtuple', ('n',)), ('outer', 'dict', ('k', ('inner', 'dict', ('n',)))))),), static_argnums=(), static_argnames=())
def f(b: Body):
    TRACES.append((b.leg.n, None if b.outer is None else (b.outer["k"], b.outer["inner"]["n"])))
    out = b.leg.x * b.leg.n
    if b.outer is not None:
        out = out + b.outer["inner"]["x"] * b.outer["inner"]["n"] * b.outer["k"]
    return out


@__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.grad_leaves, jax.grad, leaves=(('o', 0, 'dict', ('k', ('inner', 'dict', ('n', 'm')))),))
def g(o: Outer):
    return o["inner"]["x"] * o["inner"]["n"] * o["inner"]["m"] * o["k"]


def _check():
    x = jnp.float32(1.0)
    outer = {"inner": {"x": x, "n": 2, "m": x}, "k": 3}
    assert float(f(Body(Leg(x, 1), outer))) == 7.0
    assert float(f(Body(Leg(x + 1, 1), outer))) == 8.0
    assert float(f(Body(Leg(x, 1), None))) == 1.0
    assert TRACES == [(1, (3, 2)), (1, None)]
    grads = g(outer)
    assert float(grads["inner"]["x"]) == 6.0
    assert grads["k"] is None and grads["inner"]["n"] is None and grads["inner"]["m"] is None


_PLAIN_FAILS = True
