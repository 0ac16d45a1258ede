# jaxrewrite: enable
"""Per-leaf jit keeps donation by name and by position, for an argument passed either way
(issue 20, item 1): JAX resolves the names against the user's function, not against the
wrapper jaxrewrite hands it. Compared with the same program split by hand."""
from functools import partial
from typing import TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import Static


class Cfg(TypedDict):
    w: jax.Array
    n: Static[int]


def body(x, c):
    out = x
    for _ in range(c["n"]):  # a Python int: static
        out = out * c["w"]
    return out


@partial(jax.jit, donate_argnames=("x",))
def by_name(x, c: Cfg):
    return body(x, c)


@partial(jax.jit, donate_argnums=(0,))
def by_number(x, c: Cfg):
    return body(x, c)


@partial(jax.jit, donate_argnames="c")
def whole_config(x, c: Cfg):
    return body(x, c)


def later(x, c: Cfg):
    return body(x, c)


by_call = jax.jit(later, donate_argnames=("x",))

# The same programs by hand: the static entry split off as a static argument.
hand_name = jax.jit(lambda x, c, n: body(x, {**c, "n": n}), static_argnums=2, donate_argnames=("x",))
hand_number = jax.jit(lambda x, c, n: body(x, {**c, "n": n}), static_argnums=2, donate_argnums=(0,))
hand_config = jax.jit(lambda x, c, n: body(x, {**c, "n": n}), static_argnums=2, donate_argnames="c")


def _donated(call):
    """Whether each buffer was donated (deleted) by one call, and the call's result."""
    x, w = jnp.arange(3.0), jnp.full(3, 2.0)
    out = call(x, w)
    return (x.is_deleted(), w.is_deleted()), out


def _check():
    expected = jnp.arange(3.0) * 8.0
    for mine, hand in [
        (lambda x, w: by_name(x, {"w": w, "n": 3}), lambda x, w: hand_name(x, {"w": w}, 3)),
        (lambda x, w: by_name(x=x, c={"w": w, "n": 3}), lambda x, w: hand_name(x=x, c={"w": w}, n=3)),
        (lambda x, w: by_number(x, {"w": w, "n": 3}), lambda x, w: hand_number(x, {"w": w}, 3)),
        (lambda x, w: by_number(x=x, c={"w": w, "n": 3}), lambda x, w: hand_number(x=x, c={"w": w}, n=3)),
        (lambda x, w: whole_config(x, {"w": w, "n": 3}), lambda x, w: hand_config(x, {"w": w}, 3)),
        (lambda x, w: whole_config(x, c={"w": w, "n": 3}), lambda x, w: hand_config(x, c={"w": w}, n=3)),
        (lambda x, w: by_call(x, {"w": w, "n": 3}), lambda x, w: hand_name(x, {"w": w}, 3)),
        (lambda x, w: by_call(x=x, c={"w": w, "n": 3}), lambda x, w: hand_name(x=x, c={"w": w}, n=3)),
    ]:
        (deleted, out), (hand_deleted, hand_out) = _donated(mine), _donated(hand)
        assert deleted == hand_deleted, (deleted, hand_deleted)
        assert jnp.allclose(out, expected) and jnp.allclose(hand_out, expected)
    # On the installed JAX's CPU backend donation is real: the donated buffer is gone.
    assert _donated(lambda x, w: by_name(x, {"w": w, "n": 3}))[0] == (True, False)
    assert _donated(lambda x, w: whole_config(x, {"w": w, "n": 3}))[0] == (False, True)


_PLAIN_FAILS = True
