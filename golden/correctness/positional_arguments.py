# jaxrewrite: enable
"""A transform's arguments passed by position are the keywords they bind: completed in place, never repeated."""
import dataclasses

import jax
import jax.numpy as jnp
from jax.tree_util import register_dataclass
from jaxrewrite import NoDiff, Static

TRACES = []


def body(x, n: Static[int]):
    TRACES.append(n)
    return x * len(range(n))


by_tuple = jax.vmap(body, (0, None))  # already right: left as written
by_int = jax.vmap(body, 0)  # completed in place: (0, None)
with_out_axes = jax.vmap(body, 0, 0)
listed = jax.vmap(body, [0, None])


def summed(x, n: Static[int]):
    TRACES.append(("pmap", n))
    return jax.lax.psum(x, "i") * len(range(n))


per_device = jax.pmap(summed, "i")  # axis_name kept, static_broadcasted_argnums added


def power(x, n: Static[int], scale: NoDiff[float]):
    out = x
    for _ in range(n - 1):  # n must be a Python int
        out = out * x
    return out * scale


power_vjp = jax.custom_vjp(power, (2,))  # completed in place: (1, 2)


def power_fwd(x, n, scale):
    return power(x, n, scale), x


def power_bwd(n, scale, x, g):
    return (g * n * x ** (n - 1) * scale,)


power_vjp.defvjp(power_fwd, power_bwd)


@dataclasses.dataclass
class Point:
    x: jax.Array
    n: Static[int]


@dataclasses.dataclass
class Pair:
    a: jax.Array
    k: Static[int]


register_dataclass(Point, ["x"], ["n"])  # already right: left as written
register_dataclass(Pair, ["a"], [])  # meta_fields completed in place


def old_jit_spelling():
    return jax.jit(body, None, None, (0,))  # static_argnums by position (JAX before 0.5): completed in place


def _check():
    xs = jnp.ones(2)
    for mapped in (by_tuple, by_int, with_out_axes, listed):
        assert mapped(xs, 3).tolist() == [3.0, 3.0]
    assert TRACES == [3] * 4
    devices = jax.local_device_count()
    assert per_device(jnp.ones(devices), 2).tolist() == [2.0 * devices] * devices
    assert per_device(jnp.zeros(devices), 2).tolist() == [0.0] * devices
    assert TRACES[4:] == [("pmap", 2)]
    assert float(power_vjp(2.0, 3, 1.5)) == 12.0
    assert float(jax.grad(power_vjp)(2.0, 3, 1.5)) == 18.0
    assert jax.tree_util.tree_leaves(Point(jnp.float32(1.0), 2)) == [1.0]
    assert jax.tree_util.tree_leaves(Pair(jnp.float32(1.0), 2)) == [1.0]
    leaves, tree = jax.tree_util.tree_flatten(Pair(jnp.float32(1.0), 2))
    assert tree.unflatten(leaves).k == 2


_PLAIN_FAILS = True
