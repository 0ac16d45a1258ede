"""What the JR006 flow tests share (test_flow.py, test_flow_inner.py, test_flow_bullets.py): the
programs, each labelled by what JAX does with it and whether check reports it, and the check of
one case (JAX's label, then check's finding)."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

from golden_cases import TRACE_ERRORS, jax_rejects

from jaxrewrite.engine.findings import trace_findings

#: What JAX raises besides the trace-time errors: a tracer given to NumPy, and the traced value an
#: inner jit's static parameter then tries to hash (``jax.jit(jnp.linalg.norm)(x, ord=1)``).
ERRORS = (*TRACE_ERRORS, "TracerArrayConversionError", "ValueError")


@cache
def program_rejects(path: Path) -> bool:
    """JAX's label for a dataflow corpus program: import it, call ``main()``; does JAX raise?"""
    stem = f"dataflow_{path.parent.name}_{path.stem}"
    spec = importlib.util.spec_from_file_location(stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        module.main()
    except Exception as exc:  # noqa: BLE001 - the ground truth is whatever JAX raises
        assert type(exc).__name__ in ERRORS, f"{path.name}: unexpected {exc!r}"
        return True
    return False


HEAD = """\
import dataclasses
from functools import partial
from typing import NamedTuple, Optional

import equinox as eqx
import flax.struct
import jax
import jax.numpy as jnp
from jax import lax
"""


#: name -> (program after HEAD, JAX rejects it, check reports it).
FIELD_CASES: dict[str, tuple[str, bool, bool]] = {
    # -- fields of traced pytree arguments ----------------------------------------------------
    "namedtuple_range": (
        """
class S(NamedTuple):
    steps: int
    x: jax.Array
@jax.jit
def f(s: S):
    for _ in range(s.steps):
        pass
    return s.x
def main():
    return f(S(3, jnp.ones(2)))
""",
        True,
        True,
    ),
    "namedtuple_shape_attr": (
        """
class S(NamedTuple):
    steps: int
    x: jax.Array
@jax.jit
def f(s: S):
    return jnp.zeros(s.x.shape[0]) + s.steps
def main():
    return f(S(3, jnp.ones(2)))
""",
        False,
        False,
    ),
    "namedtuple_functional": (
        """
S = NamedTuple("S", [("steps", int), ("x", jax.Array)])
@jax.jit
def f(s: S):
    return jnp.zeros(s.steps)
def main():
    return f(S(3, jnp.ones(2)))
""",
        True,
        True,
    ),
    "namedtuple_string_annotation_local": (
        """
class S(NamedTuple):
    flag: bool
@jax.jit
def f(x, s: "S"):
    t = s
    if t.flag:
        return x
    return -x
def main():
    return f(1.0, S(True))
""",
        True,
        True,
    ),
    "namedtuple_nested": (
        """
class Cfg(NamedTuple):
    n: int
class S(NamedTuple):
    cfg: Cfg
    x: jax.Array
@jax.jit
def f(s: S):
    return s.x + jnp.ones(s.cfg.n)
def main():
    return f(S(Cfg(2), jnp.ones(2)))
""",
        True,
        True,
    ),
    "namedtuple_unpacked": (
        """
class S(NamedTuple):
    steps: int
    x: jax.Array
@jax.jit
def f(s: S):
    steps, x = s
    return x + jnp.zeros(steps)
def main():
    return f(S(2, jnp.ones(2)))
""",
        True,
        True,
    ),
    "namedtuple_through_helper": (
        """
class S(NamedTuple):
    steps: int
def count(s):
    return jnp.arange(s.steps)
@jax.jit
def f(s: S):
    return count(s)
def main():
    return f(S(3))
""",
        True,
        True,
    ),
    "namedtuple_under_branch": (
        """
class S(NamedTuple):
    steps: int
    x: jax.Array
@jax.jit
def f(s: S, flag: bool = False):
    if flag:
        return jnp.zeros(s.steps)
    return s.x
def main():
    return f(S(3, jnp.ones(2)))
""",
        False,
        False,
    ),
    "optional_bool_field_truth": (
        """
class S(NamedTuple):
    flag: Optional[bool]
    x: jax.Array
@jax.jit
def f(s: S):
    if s.flag is None:
        return s.x
    return -s.x
def main():
    return f(S(None, jnp.ones(2)))
""",
        False,
        False,
    ),
    "namedtuple_index": (
        """
class S(NamedTuple):
    x: jax.Array
    steps: int
@jax.jit
def f(s: S):
    return s[0] + jnp.zeros(s[1])
def main():
    return f(S(jnp.ones(2), 2))
""",
        True,
        True,
    ),
    "namedtuple_index_of_shape_field": (
        """
class S(NamedTuple):
    x: jax.Array
    steps: int
@jax.jit
def f(s: S):
    return s[0] + jnp.zeros(s[0].shape)
def main():
    return f(S(jnp.ones(2), 2))
""",
        False,
        False,
    ),
    "typeddict_key": (
        """
from typing import TypedDict
class Cfg(TypedDict):
    layers: int
    scale: float
@jax.jit
def f(x, cfg: Cfg):
    for _ in range(cfg["layers"]):
        x = x * cfg["scale"]
    return x
def main():
    return f(1.0, {"layers": 2, "scale": 0.5})
""",
        True,
        True,
    ),
    "typeddict_scale_only": (
        """
from typing import TypedDict
class Cfg(TypedDict):
    layers: int
    scale: float
@jax.jit
def f(x, cfg: Cfg):
    return x * cfg["scale"]
def main():
    return f(1.0, {"layers": 2, "scale": 0.5})
""",
        False,
        False,
    ),
    "struct_property": (
        """
@flax.struct.dataclass
class SimulatorState:
    timestep: jax.Array
    num_timesteps: int
    @property
    def remaining_timesteps(self) -> int:
        return self.num_timesteps - 1 - self.timestep
@jax.jit
def benchmark(state: SimulatorState):
    for _ in range(state.remaining_timesteps):
        pass
    return state
def main():
    return benchmark(SimulatorState(jnp.array(0), 5))
""",
        True,
        True,
    ),
    "struct_property_of_static_field": (
        """
@flax.struct.dataclass
class SimulatorState:
    timestep: jax.Array
    num_timesteps: int = flax.struct.field(pytree_node=False)
    @property
    def total(self) -> int:
        return self.num_timesteps - 1
@jax.jit
def benchmark(state: SimulatorState):
    for _ in range(state.total):
        pass
    return state
def main():
    return benchmark(SimulatorState(jnp.array(0), 5))
""",
        False,
        False,
    ),
    "eqx_module_called_in_jitted_loss": (
        """
class MLP(eqx.Module):
    depth: int
    w: jax.Array
    def __call__(self, x):
        for _ in range(self.depth):
            x = self.w * x
        return x
@jax.jit
def loss(model: MLP, x):
    return jnp.sum(model(x))
def main():
    return loss(MLP(2, jnp.ones(2)), jnp.ones(2))
""",
        True,
        True,
    ),
    "eqx_module_method_static_depth": (
        """
class MLP(eqx.Module):
    w: jax.Array
    depth: int = eqx.field(static=True)
    def apply(self, x):
        for _ in range(self.depth):
            x = self.w * x
        return x
@jax.jit
def loss(model: MLP, x):
    return jnp.sum(model.apply(x))
def main():
    return loss(MLP(jnp.ones(2), 2), jnp.ones(2))
""",
        False,
        False,
    ),
    "eqx_method_returns_traced_field": (
        """
class M(eqx.Module):
    n: int
    def size(self):
        return self.n * 2
@jax.jit
def f(m: M, x):
    return x + jnp.zeros(m.size()).sum()
def main():
    return f(M(2), 1.0)
""",
        True,
        True,
    ),
    "eqx_inherited_call": (
        """
class Base(eqx.Module):
    depth: int
    def __call__(self, x):
        return x + jnp.zeros(self.depth).sum()
class MLP(Base):
    w: jax.Array
@jax.jit
def loss(model: MLP, x):
    return model(x) * model.w
def main():
    return loss(MLP(2, jnp.ones(2)), jnp.ones(2))
""",
        True,
        True,
    ),
    "eqx_overridden_call_is_the_subclass_one": (
        """
class Base(eqx.Module):
    depth: int
    def __call__(self, x):
        return x + jnp.zeros(self.depth).sum()
class MLP(Base):
    w: jax.Array
    def __call__(self, x):
        return x * self.w
@jax.jit
def loss(model: MLP, x):
    return model(x)
def main():
    return loss(MLP(2, jnp.ones(2)), jnp.ones(2))
""",
        False,
        False,
    ),
    "vmap_per_leaf_axes_leave_a_field_unmapped": (
        """
from typing import TypedDict
class Cfg(TypedDict):
    steps: int
    x: jax.Array
def f(cfg: Cfg):
    return cfg["x"] + jnp.zeros(cfg["steps"]).sum()
def main():
    return jax.vmap(f, in_axes=({"steps": None, "x": 0},))({"steps": 3, "x": jnp.ones(2)})
""",
        False,
        False,
    ),
    "eqx_self_field": (
        """
class M(eqx.Module):
    n: int
    @jax.jit
    def __call__(self, x):
        return x + jnp.zeros(self.n)
def main():
    return M(2)(jnp.ones(2))
""",
        True,
        True,
    ),
    "eqx_self_static_field": (
        """
class M(eqx.Module):
    n: int = eqx.field(static=True)
    @jax.jit
    def __call__(self, x):
        return x + jnp.zeros(self.n)
def main():
    return M(2)(jnp.ones(2))
""",
        False,
        False,
    ),
    "eqx_param_field": (
        """
class M(eqx.Module):
    depth: int
    w: jax.Array
@jax.jit
def f(m: M, x):
    for _ in range(m.depth):
        x = m.w * x
    return x
def main():
    return f(M(2, jnp.ones(2)), jnp.ones(2))
""",
        True,
        True,
    ),
    "eqx_filter_jit_not_traced": (
        """
class M(eqx.Module):
    depth: int
    w: jax.Array
@eqx.filter_jit
def f(m: M, x):
    for _ in range(m.depth):
        x = m.w * x
    return x
def main():
    return f(M(2, jnp.ones(2)), jnp.ones(2))
""",
        False,
        False,
    ),
    "eqx_subclass_of_local_module": (
        """
class Base(eqx.Module):
    n: int
class M(Base):
    w: jax.Array
@jax.jit
def f(m: M):
    return m.w + jnp.zeros(m.n)
def main():
    return f(M(2, jnp.ones(2)))
""",
        True,
        True,
    ),
    "flax_struct_field": (
        """
@flax.struct.dataclass
class S:
    k: int
    steps: int = flax.struct.field(pytree_node=False)
@jax.jit
def f(s: S):
    return jnp.zeros(s.k)
def main():
    return f(S(2, 3))
""",
        True,
        True,
    ),
    "flax_struct_static_field": (
        """
@flax.struct.dataclass
class S:
    k: int
    steps: int = flax.struct.field(pytree_node=False)
@jax.jit
def f(s: S):
    return jnp.zeros(s.steps) + s.k
def main():
    return f(S(2, 3))
""",
        False,
        False,
    ),
    "flax_pytreenode_positional_static": (
        """
class S(flax.struct.PyTreeNode):
    k: int
    steps: int = flax.struct.field(False)
@jax.jit
def f(s: S):
    return jnp.zeros(s.steps) + s.k
def main():
    return f(S(2, 3))
""",
        False,
        False,
    ),
    "flax_pytreenode_field": (
        """
class S(flax.struct.PyTreeNode):
    k: int
@jax.jit
def f(s: S):
    return jnp.zeros(s.k)
def main():
    return f(S(2))
""",
        True,
        True,
    ),
    "register_dataclass_field": (
        """
@jax.tree_util.register_dataclass
@dataclasses.dataclass
class S:
    a: int
    b: int = dataclasses.field(default=1, metadata=dict(static=True))
@jax.jit
def f(s: S):
    return jnp.zeros(s.a)
def main():
    return f(S(2))
""",
        True,
        True,
    ),
    "register_dataclass_static_field": (
        """
@jax.tree_util.register_dataclass
@dataclasses.dataclass
class S:
    a: int
    b: int = dataclasses.field(default=1, metadata=dict(static=True))
@jax.jit
def f(s: S):
    return jnp.zeros(s.b) + s.a
def main():
    return f(S(2))
""",
        False,
        False,
    ),
    "register_dataclass_explicit_meta": (
        """
@partial(jax.tree_util.register_dataclass, data_fields=["a"], meta_fields=["b"])
@dataclasses.dataclass
class S:
    a: int
    b: int
@jax.jit
def f(s: S):
    return jnp.zeros(s.b) + s.a
def main():
    return f(S(2, 3))
""",
        False,
        False,
    ),
    "register_pytree_node_class_unknown": (
        """
@jax.tree_util.register_pytree_node_class
@dataclasses.dataclass
class S:
    a: int
    b: int
    def tree_flatten(self):
        return (self.a,), (self.b,)
    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children, *aux)
@jax.jit
def f(s: S):
    return jnp.zeros(s.b) + s.a
def main():
    return f(S(2, 3))
""",
        False,
        False,
    ),
    "unannotated_struct_stays_silent": (
        """
class S(NamedTuple):
    steps: int
@jax.jit
def f(s):
    return jnp.zeros(s.steps)
def main():
    return f(S(3))
""",
        True,
        False,
    ),
    # -- library parameters the issue names, spelled through locals -----------------------------
    "zeros_of_product": (
        """
@jax.jit
def f(x, n):
    return x + jnp.zeros(n * 2).sum()
def main():
    return f(1.0, 3)
""",
        True,
        True,
    ),
    "linspace_num_local": (
        """
@jax.jit
def f(n):
    m = n + 1
    return jnp.linspace(0.0, 1.0, num=m)
def main():
    return f(3)
""",
        True,
        True,
    ),
    "scan_length_through_a_local": (
        """
@jax.jit
def f(x, steps):
    n = steps * 2
    def body(c, _):
        return c + 1.0, None
    return lax.scan(body, x, None, length=n)[0]
def main():
    return f(1.0, 3)
""",
        True,
        True,
    ),
    "pad_widths": (
        """
@jax.jit
def f(x, w):
    return jnp.pad(x, ((w, w),))
def main():
    return f(jnp.ones(2), 1)
""",
        True,
        True,
    ),
}


#: name -> (program after HEAD, JAX rejects it, check reports it).
INNER_CASES: dict[str, tuple[str, bool, bool]] = {
    "closure_under_grad": (
        """
@jax.jit
def outer(x, n):
    def loss(p):
        return jnp.sum(jnp.zeros(n) + p)
    return jax.grad(loss)(x)
def main():
    return outer(1.0, 3)
""",
        True,
        True,
    ),
    "closure_under_grad_static": (
        """
@partial(jax.jit, static_argnames="n")
def outer(x, n):
    def loss(p):
        return jnp.sum(jnp.zeros(n) + p)
    return jax.grad(loss)(x)
def main():
    return outer(1.0, 3)
""",
        False,
        False,
    ),
    "closure_value_and_grad_has_aux": (
        """
@jax.jit
def outer(x, n):
    def loss(p):
        return jnp.sum(p * jnp.ones(n)), n
    return jax.value_and_grad(loss, has_aux=True)(x)
def main():
    return outer(1.0, 3)
""",
        True,
        True,
    ),
    "grad_parameter_truth": (
        """
@jax.jit
def outer(x):
    def loss(p):
        if p > 0:
            return p
        return -p
    return jax.grad(loss)(x)
def main():
    return outer(1.0)
""",
        True,
        True,
    ),
    "grad_parameter_truth_no_outer_trace": (
        """
def loss(p):
    if p > 0:
        return p
    return -p
def main():
    return jax.grad(loss)(1.0)
""",
        False,
        False,
    ),
    # Under jit even grad of a constant is staged (p > 0 is a tracer): the analysis follows only
    # what the call passes, so it stays silent here.
    "grad_parameter_of_constant_stays_silent": (
        """
@jax.jit
def outer(x):
    def scale(p):
        if p > 0:
            return p * 2.0
        return p
    return x * jax.grad(scale)(3.0)
def main():
    return outer(1.0)
""",
        True,
        False,
    ),
    "closure_direct_call": (
        """
@jax.jit
def outer(x, n):
    def pad():
        return jnp.zeros(n)
    return x + pad().sum()
def main():
    return outer(1.0, 3)
""",
        True,
        True,
    ),
    "closure_under_vmap": (
        """
@jax.jit
def outer(x, n):
    def row(v):
        return v + jnp.zeros(n).sum()
    return jax.vmap(row)(x)
def main():
    return outer(jnp.ones(2), 3)
""",
        True,
        True,
    ),
    "closure_decorated_vmap": (
        """
@jax.jit
def outer(x, n):
    @jax.vmap
    def row(v):
        return v + jnp.zeros(n).sum()
    return row(x)
def main():
    return outer(jnp.ones(2), 3)
""",
        True,
        True,
    ),
    "closure_under_checkpoint": (
        """
@jax.jit
def outer(x, n):
    def body(v):
        return v + jnp.arange(n).sum()
    return jax.checkpoint(body)(x)
def main():
    return outer(1.0, 3)
""",
        True,
        True,
    ),
    "closure_fori_loop_body": (
        """
@jax.jit
def outer(x, n):
    def body(i, c):
        return c + jnp.zeros(n).sum()
    return lax.fori_loop(0, 3, body, x)
def main():
    return outer(1.0, 3)
""",
        True,
        True,
    ),
    "closure_fori_loop_zero_trips": (
        """
@jax.jit
def outer(x, n):
    def body(i, c):
        return c + jnp.zeros(n).sum()
    return lax.fori_loop(0, 0, body, x)
def main():
    return outer(1.0, 3)
""",
        True,
        True,
    ),
    "closure_cond_untaken_branch": (
        """
@jax.jit
def outer(x, n):
    def keep(v):
        return v
    def grow(v):
        return v + jnp.zeros(n).sum()
    return lax.cond(True, keep, grow, x)
def main():
    return outer(1.0, 3)
""",
        True,
        True,
    ),
    "closure_while_loop_cond": (
        """
@jax.jit
def outer(x, n):
    def cond(c):
        return c[0] < len(range(n))
    def body(c):
        return c[0] + 1, c[1]
    return lax.while_loop(cond, body, (0, x))
def main():
    return outer(1.0, 3)
""",
        True,
        True,
    ),
    "closure_scan_body": (
        """
@jax.jit
def outer(x, n):
    def step(c, v):
        return c + jnp.ones(n).sum(), v
    return lax.scan(step, x, jnp.ones(2))
def main():
    return outer(1.0, 3)
""",
        True,
        True,
    ),
    "closure_rebound_to_constant": (
        """
@jax.jit
def outer(x, n):
    n = 3
    def loss(p):
        return jnp.sum(jnp.zeros(n) + p)
    return jax.grad(loss)(x)
def main():
    return outer(1.0, 3)
""",
        False,
        False,
    ),
    "closure_own_parameter_shadows": (
        """
@jax.jit
def outer(x, n):
    def loss(p, n=3):
        return jnp.sum(jnp.zeros(n) + p)
    return jax.grad(loss)(x)
def main():
    return outer(1.0, 3)
""",
        False,
        False,
    ),
    "closure_called_under_branch": (
        """
@jax.jit
def outer(x, n, flag: bool = False):
    def loss(p):
        return jnp.sum(jnp.zeros(n) + p)
    if flag:
        return jax.grad(loss)(x)
    return x
def main():
    return outer(1.0, 3)
""",
        False,
        False,
    ),
    "closure_never_called": (
        """
@jax.jit
def outer(x, n):
    def loss(p):
        return jnp.sum(jnp.zeros(n) + p)
    return x
def main():
    return outer(1.0, 3)
""",
        False,
        False,
    ),
    "closure_through_lambda_stays_silent": (
        """
@jax.jit
def outer(x, n):
    def loss(p):
        return jnp.sum(jnp.zeros(n) + p)
    return jax.grad(lambda p: loss(p))(x)
def main():
    return outer(1.0, 3)
""",
        True,
        False,
    ),
}


def check_case(name: str, case: tuple[str, bool, bool], tmp_path: Path) -> None:
    """JAX's label for the program, then whether check reports it."""
    body, rejects, found = case
    path = tmp_path / f"{name}.py"
    path.write_text(HEAD + body)
    assert jax_rejects(path) == rejects, f"{name}: JAX {'runs' if rejects else 'rejects'} it"
    findings = trace_findings(path.read_text(), str(path))
    assert bool(findings) == found, findings
