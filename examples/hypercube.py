# jaxrewrite: enable
"""The seed example: ``c_func`` is static because its annotation says so.

Run it through the rewriter::

    python -m jaxrewrite examples/hypercube.py

jaxrewrite turns ``@jax.jit`` below into
``@(lambda fun: jax.jit(fun, static_argnums=(3,), static_argnames=('c_func',)))``.
Under plain ``python`` the annotation is only a type hint, ``c_func`` stays a traced
argument, and JAX rejects the function passed for it.

Each demo is a function called from ``main``: ``demo_jit`` for the decorator,
``demo_pmap`` for the seed's pmap call site (run with
``XLA_FLAGS=--xla_force_host_platform_device_count=4`` for four CPU devices).
"""

from typing import Callable

import jax
import jax.numpy as jnp
from jax import pmap

from jaxrewrite import Static

#: How often JAX traced make_hypercube. A static argument is part of jit's cache key:
#: the same c_func reuses the trace, a new c_func traces again.
TRACES = 0


@jax.jit
def make_hypercube(a, b, c: float, c_func: Static[Callable[[float], float]]):
    global TRACES
    TRACES += 1
    arr = jnp.empty((3, 3))  # JAX fills "empty" arrays with zeros

    # Some other implementation details here
    arr += a
    arr *= b

    arr **= c_func(c)

    return arr


def double(x):
    return 2 * x


def square(x):
    return x * x


def _show(arr: jax.Array) -> str:
    """``3x3 of 8``: the result is uniform, so shape and one value say it all."""
    assert bool((arr == arr[0, 0]).all())
    return f"{arr.shape[0]}x{arr.shape[1]} of {float(arr[0, 0]):g}"


def demo_jit() -> None:
    print("make_hypercube(1.0, 2.0, 1.5, double) ->", _show(make_hypercube(1.0, 2.0, 1.5, double)))
    assert TRACES == 1
    # c is traced: a new value reuses the compiled function.
    print("make_hypercube(1.0, 2.0, 2.5, double) ->", _show(make_hypercube(1.0, 2.0, 2.5, double)))
    assert TRACES == 1, "a new value of the traced argument c must not retrace"
    # c_func is static: a new function is a new cache key, so JAX traces again.
    print("make_hypercube(1.0, 2.0, 3.0, square) ->", _show(make_hypercube(1.0, 2.0, 3.0, square)))
    assert TRACES == 2, "a new c_func must retrace: it is static"
    print(f"traces: {TRACES}; c_func is static, c is traced")


#: The seed's headline: pmap applied where it is used, far from the signature, with no
#: argnums written by hand. jaxrewrite adds static_broadcasted_argnums=(3,) to this call.
pmake_hypercube = pmap(make_hypercube, in_axes=(0, 0, None, None))


def demo_pmap() -> None:
    n = jax.local_device_count()
    a = jnp.arange(1.0, n + 1)  # one value per device
    out = pmake_hypercube(a, jnp.ones(n), 1.0, double)
    corners = [float(v) for v in out[:, 0, 0]]
    print(f"pmake_hypercube over {n} devices -> {out.shape[1]}x{out.shape[2]} each, corners {corners}")
    assert corners == [float(v) ** 2 for v in range(1, n + 1)], "c_func reached each device as double"


def main() -> None:
    demo_jit()
    demo_pmap()


if __name__ == "__main__":
    main()
