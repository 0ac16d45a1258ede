# jaxrewrite: enable
"""Ahead-of-time use of per-leaf jit and pmap (issue 20, items 7 and 8): ``f.lower(...)
.compile()`` gives an executable that takes what ``f`` takes, the whole config included;
pmap's result has ``lower`` as jax.pmap's has. Compared with the same programs by hand."""
from functools import partial
from typing import NamedTuple, TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import Static


class Cfg(TypedDict):
    w: jax.Array
    n: Static[int]


class Opts(NamedTuple):
    w: jax.Array
    n: Static[int]


def body(x, w, n):
    return jnp.stack([x * w] * n)  # the output shape depends on the static entry


@jax.jit
def f(x, c: Cfg):
    return body(x, c["w"], c["n"])


@partial(jax.jit, static_argnums=(0,))
def g(k, o: Opts):
    return body(jnp.arange(3.0), o.w, o.n) + k


@jax.pmap
def p(x, c: Cfg):
    return body(x, c["w"], c["n"])


hand = jax.jit(body, static_argnums=2)
hand_pmap = jax.pmap(body, static_broadcasted_argnums=2)


def _check():
    x, c = jnp.arange(3.0), {"w": jnp.float32(2.0), "n": 4}
    compiled = f.lower(x, c).compile()
    assert jnp.allclose(compiled(x, c), hand.lower(x, c["w"], 4).compile()(x, c["w"]))
    assert compiled(x, c).shape == (4, 3)
    assert jnp.allclose(compiled(x, {"w": jnp.float32(3.0), "n": 4}), body(x, 3.0, 4))
    assert jnp.allclose(f.trace(x, c=c).lower().compile()(x, c=c), body(x, 2.0, 4))
    try:
        compiled(x, {"w": jnp.float32(2.0), "n": 5})  # another static entry: lower again
    except TypeError as error:
        assert "lowered for the static entries {'n': 4}" in str(error)
    else:
        raise AssertionError("a compiled executable ran with other static entries")
    # A whole static argument is left out of the executable's call, as jax.jit leaves it out.
    o = Opts(jnp.float32(2.0), 2)
    assert jnp.allclose(g.lower(1, o).compile()(o), body(jnp.arange(3.0), 2.0, 2) + 1)
    # pmap: lower, compile, call with what p takes.
    xs = jnp.arange(3.0)[None]
    lowered = p.lower(xs, {"w": jnp.ones(1), "n": 2})
    assert jnp.allclose(lowered.compile()(xs, {"w": jnp.ones(1), "n": 2}), hand_pmap(xs, jnp.ones(1), 2))
    assert jnp.allclose(
        lowered.compile()(xs, {"w": jnp.ones(1), "n": 2}),
        hand_pmap.lower(xs, jnp.ones(1), 2).compile()(xs, jnp.ones(1)),
    )


_PLAIN_FAILS = True
