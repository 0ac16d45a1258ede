# jaxrewrite: enable
"""JAX refuses every keyword argument of a function jitted with in_shardings."""
import jax
from jax.sharding import SingleDeviceSharding

from jaxrewrite import Static

sharding = SingleDeviceSharding(jax.devices()[0])


def scale(x, *, n: Static[int]):
    return x * n


def fine(x, n: Static[int]):  # positional: pass it by position
    return x * n


scaled = jax.jit(scale, in_shardings=(sharding,))
ok = jax.jit(fine, in_shardings=(sharding,))
