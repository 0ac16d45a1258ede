# jaxrewrite: enable
"""The seed example: ``c_func`` is static because its annotation says so.

Run it through the rewriter::

    python -m jaxrewrite examples/hypercube.py

jaxrewrite turns ``@jax.jit`` below into
``@(lambda fun: jax.jit(fun, static_argnums=(3,), static_argnames=('c_func',)))``.
Under plain ``python`` the annotation is only a type hint, ``c_func`` stays a traced
argument, and JAX rejects the function passed for it.

Each demo is a function called from ``main``; another transform of ``make_hypercube``
gets its own demo next to ``demo_jit``.
"""

from typing import Callable

import jax
import jax.numpy as jnp

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


def main() -> None:
    demo_jit()


if __name__ == "__main__":
    main()
