# jaxrewrite: enable
"""custom_vjp/custom_jvp: Static and NoDiff parameters become nondiff_argnums."""
from typing import Callable

import jax
from jaxrewrite import NoDiff, Static


@__import__('functools').partial(jax.custom_vjp, nondiff_argnums=(1, 2))
def apply(x, f: NoDiff[Callable[[float], float]], n: Static[int]):
    return f(x) * n


def apply_fwd(x, f, n):
    return apply(x, f, n), x


def apply_bwd(f, n, x, g):  # the rule written for nondiff arguments: they come first
    return (g * jax.grad(f)(x) * n,)


apply.defvjp(apply_fwd, apply_bwd)


@__import__('functools').partial(jax.custom_jvp, nondiff_argnums=(1,))
def power(x, n: Static[int]):
    return x ** n


@power.defjvp
def power_jvp(n, primals, tangents):
    (x,), (t,) = primals, tangents
    return power(x, n), n * x ** (n - 1) * t


def _check():
    assert abs(float(jax.grad(apply)(1.0, jax.numpy.sin, 3)) - 3 * 0.5403023) < 1e-5
    assert float(jax.grad(power)(2.0, 3)) == 12.0


_PLAIN_FAILS = True
