# jaxrewrite: enable
"""Lambdas and comprehensions run in scopes of their own: a name bound there is not the module's def."""
import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


def fn(x, n: Static[int]):
    TRACES.append(n)
    return x * len(range(n))


def scale(x, n):
    return x * n


# fn below is the comprehension's (or lambda's) own name, bound to scale: left alone.
compiled = [jax.jit(fn) for fn in (scale,)]
generated = list(jax.jit(fn) for fn in (scale,))
by_key = {key: jax.jit(fn) for key, fn in [("s", scale)]}
as_set = {jax.jit(fn) for fn in (scale,)}
nested = [[jax.jit(fn) for fn in (scale,)] for _ in range(1)]
inner_target = [jax.jit(fn) for _ in range(1) for fn in (scale,)]
jit_any = lambda fn: jax.jit(fn)
keyword_only = lambda *, fn=scale: jax.jit(fn)

# fn below is the module's def: rewritten.
outer_name = [jax.jit(fn, static_argnums=(1,), static_argnames=('n',)) for _ in range(1)]
first_iterable = [g for g in (jax.jit(fn, static_argnums=(1,), static_argnames=('n',)),)]
lambda_default = lambda g=jax.jit(fn, static_argnums=(1,), static_argnames=('n',)): g
lambda_body = lambda: jax.jit(fn, static_argnums=(1,), static_argnames=('n',))


class Holder:
    fn = scale
    direct = jax.jit(fn)  # the class body sees its own fn: scale, left alone
    skips_class = [jax.jit(fn, static_argnums=(1,), static_argnames=('n',)) for _ in range(1)]  # a comprehension skips the class body: the def


def _check():
    for traced in (compiled[0], generated[0], by_key["s"], *as_set, nested[0][0], inner_target[0],
                   jit_any(scale), keyword_only(), Holder.direct):
        assert float(traced(2.0, jnp.asarray(3.0))) == 6.0  # an array n: only a traced n accepts it
    assert TRACES == []
    for static in (outer_name[0], first_iterable[0], lambda_default(), lambda_body(), Holder.skips_class[0]):
        assert float(static(1.0, 3)) == 3.0
        assert float(static(2.0, 3)) == 6.0
    assert TRACES == [3]  # one trace: the same def with the same static n shares JAX's cache


_PLAIN_FAILS = True
