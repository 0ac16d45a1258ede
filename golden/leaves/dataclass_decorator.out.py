# jaxrewrite: enable
"""Static dataclass fields become meta_fields, written out so JAX 0.4.30 accepts it too.

Static fields live in the treedef: they drive Python control flow under jit, and
changing one retraces, at no per-call cost beyond JAX's own flattening.
"""
import dataclasses

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


@__import__('functools').partial(jax.tree_util.register_dataclass, data_fields=('weight', 'bias'), meta_fields=('steps', 'name'))
@dataclasses.dataclass(frozen=True)
class Params:
    weight: jax.Array
    steps: Static[int]
    name: Static[str] = "p"
    bias: jax.Array = dataclasses.field(default_factory=lambda: jnp.zeros(()))
    cached: float = dataclasses.field(default=0.0, init=False)


@jax.jit
def run(p: Params, x):
    TRACES.append(p.steps)
    for _ in range(p.steps):  # a Python int, because it is in the treedef
        x = x * p.weight + p.bias
    return x


def _check():
    p = Params(jnp.float32(2.0), 3)
    assert float(run(p, 1.0)) == 8.0
    assert float(run(Params(jnp.float32(3.0), 3), 1.0)) == 27.0  # new data, same steps: no retrace
    assert TRACES == [3]
    assert float(run(Params(jnp.float32(2.0), 2), 1.0)) == 4.0  # new static value: retrace
    assert TRACES == [3, 2]
    leaves, treedef = jax.tree_util.tree_flatten(p)
    assert len(leaves) == 2  # weight and bias only


_PLAIN_FAILS = True
