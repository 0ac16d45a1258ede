# jaxrewrite: enable
"""The JAX maintainers' objection: wrappers without functools.wraps hide the signature.

The spec comes from the innermost ``def`` in the source, and JAX gets both lists, so it
never needs to inspect the wrapper's ``(*args, **kwargs)`` signature.
"""
import jax
from jaxrewrite import Static

TRACES = []
CALLS = []


def logged(func):
    def wrapper(*args, **kwargs):  # no functools.wraps
        CALLS.append(type(func).__name__)
        return func(*args, **kwargs)

    return wrapper


class Counted:
    """A callable object wrapper."""

    def __init__(self, func):
        self.func = func

    def __call__(self, *args, **kwargs):
        return self.func(*args, **kwargs)


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n', 'k'))
@logged
@Counted
def f(x, n: Static[int], *, k: Static[int] = 1):
    TRACES.append((n, k))
    return x * len(range(n + k))


def _check():
    assert float(f(1.0, 3)) == 4.0
    assert float(f(2.0, 3)) == 8.0  # no retrace
    assert float(f(1.0, n=3, k=2)) == 5.0
    assert float(f(1.0, n=3, k=2)) == 5.0  # no retrace
    assert TRACES == [(3, 1), (3, 2)]
    assert CALLS == ["Counted", "Counted"]  # the wrapper ran once per trace, as pass-through


_PLAIN_FAILS = True
