# jaxrewrite: enable
"""custom_vjp applied by a call, the pattern of JAX's own documentation."""
from typing import Callable

import jax
from jaxrewrite import NoDiff


def _clip_impl(x, f: NoDiff[Callable[[float], float]]):
    return f(x)


clip = jax.custom_vjp(_clip_impl)


def clip_fwd(x, f):
    return f(x), None


def clip_bwd(f, res, g):
    return (jax.numpy.clip(g, -1.0, 1.0),)


clip.defvjp(clip_fwd, clip_bwd)


def _check():
    assert float(jax.grad(lambda x: clip(x, lambda v: 10 * v))(1.0)) == 1.0


_PLAIN_FAILS = True
