# jaxrewrite: enable
"""A transform alias bound in the class body, used inside partial: the generated wrapper still sees it."""
from functools import partial
from typing import TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


class Config(TypedDict):
    x: jax.Array
    steps: Static[int]


class Model:
    fast = jax.jit
    fast_partial = partial(jax.jit, static_argnames=("mode",))

    @__import__('functools').partial(__import__('jaxrewrite.leaves').leaves.static_leaves, partial(fast, static_argnames="m"), leaves=(('cfg', 0, 'dict', ('steps',)),), static_argnums=(1,), static_argnames=('m',))
    def run(cfg: Config, m, scale):
        TRACES.append(("run", cfg["steps"], m))
        out = cfg["x"] * scale
        for _ in range(cfg["steps"] * m):
            out = out * 2
        return out

    @partial(fast, static_argnames=('m', 'n'), static_argnums=(1, 2))
    def plain(x, m, n: Static[int]):
        TRACES.append(("plain", m, n))
        return x * len(range(m * n))

    @__import__('functools').partial(fast_partial, static_argnums=(1, 2), static_argnames=('mode', 'n'))
    def moded(x, mode, n: Static[int]):
        TRACES.append(("moded", mode, n))
        return x * len(range(n)) if mode == "up" else -x

    @__import__('functools').partial(fast, static_argnums=(1,), static_argnames=('n',))
    def bare(x, n: Static[int]):
        TRACES.append(("bare", n))
        return x * len(range(n))


def _check():
    cfg = {"x": jnp.ones(2), "steps": 1}
    assert Model.run(cfg, 2, 1.0).tolist() == [4.0, 4.0]
    assert Model.run({**cfg, "x": jnp.zeros(2)}, 2, 3.0).tolist() == [0.0, 0.0]  # no retrace
    assert float(Model.plain(1.0, 2, 3)) == 6.0
    assert float(Model.plain(2.0, 2, 3)) == 12.0
    assert float(Model.moded(1.0, "up", 3)) == 3.0
    assert float(Model.moded(2.0, "up", 3)) == 6.0
    assert float(Model.bare(1.0, 4)) == 4.0
    assert float(Model.bare(2.0, 4)) == 8.0
    assert TRACES == [("run", 1, 2), ("plain", 2, 3), ("moded", "up", 3), ("bare", 4)]


_PLAIN_FAILS = True
