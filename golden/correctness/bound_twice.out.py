# jaxrewrite: enable
"""Names bound more than one way to the same thing: import fallbacks, overloads, twin defs, f = jax.jit(f)."""
import sys
from typing import overload

import jax
import jax.numpy as jnp
import jaxrewrite

try:
    from typing import Annotated
except ImportError:
    from typing_extensions import Annotated

if sys.version_info >= (3, 9):
    from typing import Annotated as Ann
else:
    from typing_extensions import Annotated as Ann

TRACES = []


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
def fallback(x, n: Annotated[int, jaxrewrite.STATIC]):
    TRACES.append(("fallback", n))
    return x * len(range(n))


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
def versioned(x, n: Ann[int, jaxrewrite.STATIC]):
    TRACES.append(("versioned", n))
    return x * len(range(n))


@overload
def ones(n: jaxrewrite.Static[int]) -> jax.Array: ...
@overload
def ones(n: jaxrewrite.Static[int], dtype: type) -> jax.Array: ...
def ones(n: jaxrewrite.Static[int], dtype=jnp.float32):
    TRACES.append(("ones", n))
    return jnp.ones(n, dtype)


fast = jax.jit(ones, static_argnums=(0,), static_argnames=('n',))


def build_ones():
    return jax.jit(ones, static_argnums=(0,), static_argnames=('n',))  # runs later: the stubs are gone by then, the implementation is what is left

if sys.platform == "never":
    def twin(x, n: jaxrewrite.Static[int]):
        return x * len(range(n))
else:
    def twin(x, n: jaxrewrite.Static[int]):
        TRACES.append(("twin", n))
        return x * len(range(n))

twin_jit = jax.jit(twin, static_argnums=(1,), static_argnames=('n',))


def step(x, n: jaxrewrite.Static[int]):
    TRACES.append(("step", n))
    return x * len(range(n))


step = jax.jit(step, static_argnums=(1,), static_argnames=('n',))  # the very common spelling: the def, rewritten
step_mapped = jax.vmap(step, in_axes=(0, None))  # step is the jitted def here: its statics hold through the rebinding
by_hand = jax.vmap(step, in_axes=(0, None))


def redefined(x, n: jaxrewrite.Static[int]):
    return x * len(range(n))


first = jax.jit(redefined, static_argnums=(1,), static_argnames=('n',))  # the def above


def redefined(n: jaxrewrite.Static[int], x):
    return x * len(range(n)) * 10


second = jax.jit(redefined, static_argnums=(0,), static_argnames=('n',))  # the def just above: its own positions


def _check():
    for f, name in ((fallback, "fallback"), (versioned, "versioned"), (twin_jit, "twin"), (step, "step")):
        assert float(f(1.0, 3)) == 3.0
        assert float(f(2.0, 3)) == 6.0
        assert TRACES[-1] == (name, 3) and TRACES.count((name, 3)) == 1
    assert fast(3).shape == (3,)
    assert fast(3).shape == (3,)
    assert build_ones()(3).shape == (3,)
    assert TRACES.count(("ones", 3)) == 1
    assert by_hand(jnp.ones(2), 3).tolist() == [3.0, 3.0]
    assert step_mapped(jnp.ones(2), 3).tolist() == [3.0, 3.0]
    assert float(first(1.0, 2)) == 2.0 and float(second(2, 1.0)) == 20.0


_PLAIN_FAILS = True
