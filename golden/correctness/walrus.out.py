# jaxrewrite: enable
"""``(name := value)`` rebinds a name of the scope it runs in (a lambda's own, inside a lambda)."""
import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


def fn(x, n: Static[int]):
    TRACES.append(n)
    return x * len(range(n))


def scale(x, n):
    return x * n


kept = jax.jit(fn, static_argnums=(1,), static_argnames=('n',))  # still the def here: rewritten
in_lambda = lambda: (fn := scale)  # binds the lambda's own fn, not the module's
after_lambda = jax.jit(fn, static_argnums=(1,), static_argnames=('n',))  # still the def: rewritten
lambda_local = lambda: [(fn := scale), jax.jit(fn)][1]  # the lambda's fn: left alone
picked = (fn := scale)  # runs whenever this line does: fn is scale from here on
rebound = jax.jit(fn)  # scale: left alone


def _check():
    for static in (kept, after_lambda):
        assert float(static(1.0, 3)) == 3.0
        assert float(static(2.0, 3)) == 6.0
    assert TRACES == [3]  # one trace: the same def with the same static n shares JAX's cache
    for traced in (rebound, lambda_local()):
        assert float(traced(2.0, jnp.asarray(3.0))) == 6.0  # an array n: only a traced n accepts it
    assert in_lambda() is scale


_PLAIN_FAILS = True
