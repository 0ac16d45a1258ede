"""Static fields of classes whose base is defined in another module (issue 42, item 2).

Real Equinox and flax.struct code defines ``class AbstractX(eqx.Module)`` in one module and
subclasses it in others; the rewrite reads one module, so it cannot see what the base is. The
fields are written ``jaxrewrite.field(static=True)`` (both libraries' metadata keys), or the
library's own spelling where a value names it. Here a real package, imported through the hook:
each class runs beside the same class written by hand with the library's field function (leaves,
results, trace counts), and on a plain class and an NNX Module the field is the plain value.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import jaxrewrite as run_jaxrewrite
from support import write

import jaxrewrite

pytest.importorskip("equinox")
pytest.importorskip("flax")

BASE = """\
import jax
import equinox as eqx
from flax import struct, nnx


class AbstractModel(eqx.Module):
    w: jax.Array


class AbstractNode(struct.PyTreeNode):
    w: jax.Array


class Plain:
    pass


class NnxBase(nnx.Module):
    pass
"""

MODELS = """\
# jaxrewrite: enable
from typing import Callable

import equinox as eqx

from pkg.base import AbstractModel, AbstractNode, NnxBase, Plain
from jaxrewrite import Static


class Model(AbstractModel):
    act: Static[Callable]
    depth: Static[int] = 2


class Named(AbstractModel):
    scale: Static[float] = eqx.field(converter=float)
    depth: Static[int] = 3


class Node(AbstractNode):
    depth: Static[int] = 2


class Settings(Plain):
    depth: Static[int] = 4


class Layer(NnxBase):
    depth: Static[int] = 5

    def __init__(self):
        self.k = 1
"""

HAND = """\
from typing import Callable

import equinox as eqx
from flax import struct

from pkg.base import AbstractModel, AbstractNode, NnxBase, Plain


class Model(AbstractModel):
    act: Callable = eqx.field(static=True)
    depth: int = eqx.field(default=2, static=True)


class Named(AbstractModel):
    scale: float = eqx.field(converter=float, static=True)
    depth: int = eqx.field(default=3, static=True)


class Node(AbstractNode):
    depth: int = struct.field(default=2, pytree_node=False)


class Settings(Plain):
    depth: int = 4


class Layer(NnxBase):
    depth: int = 5

    def __init__(self):
        self.k = 1
"""

MAIN = """\
import json, sys
import jax, jax.numpy as jnp
import jaxrewrite
mod = __import__(sys.argv[1], fromlist=["x"])
traces = []


@jax.jit
def run(m, x):
    traces.append(m.depth)
    for _ in range(m.depth):
        x = x * 2
    return (x * m.w).sum()


w = jnp.ones(3)
models = [mod.Model(w, jnp.tanh), mod.Model(w, jnp.tanh, 3), mod.Named(w, 2), mod.Node(w)]
out = {
    "leaves": [len(jax.tree_util.tree_leaves(m)) for m in models],
    "results": [float(run(m, jnp.float32(1.0))) for m in models + models],
    "traces": traces,
    "plain": [mod.Settings.depth, mod.Settings().depth, vars(mod.Settings).get("depth")],
    "nnx": [mod.Layer().depth, type(vars(mod.Layer)["depth"]).__name__],
    "field": type(mod.Model.__dataclass_fields__["depth"]).__name__,
}
print(json.dumps(out))
"""


def test_fields_of_classes_with_bases_in_another_module_run_as_by_hand(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "base.py", BASE)
    write(tmp_path / "pkg" / "models.py", MODELS)
    write(tmp_path / "pkg" / "hand.py", HAND)
    write(tmp_path / "main.py", MAIN)
    rewritten = run_jaxrewrite("main.py", "pkg.models", cwd=tmp_path)
    assert rewritten.returncode == 0, rewritten.stderr
    by_hand = run_jaxrewrite("main.py", "pkg.hand", cwd=tmp_path)
    assert by_hand.returncode == 0, by_hand.stderr
    ours, theirs = json.loads(rewritten.stdout), json.loads(by_hand.stdout)
    assert ours["leaves"] == theirs["leaves"] == [1, 1, 1, 1]  # only the weight is a leaf
    assert ours["results"] == theirs["results"]
    assert ours["traces"] == theirs["traces"] == [2, 3, 3, 2]  # static: one trace per depth value
    assert ours["plain"] == theirs["plain"] == [4, 4, 4]  # a plain class gets the plain value
    assert ours["nnx"] == theirs["nnx"] == [5, "int"]
    assert ours["field"] == "_EitherField" and theirs["field"] == "Field"


VALUES = """\
# jaxrewrite: enable
import functools
from functools import partial
from typing import Callable

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxrewrite import Static


class M(eqx.Module):
    w: jax.Array
    act: Static[Callable] = functools.partial(jax.nn.leaky_relu, negative_slope=0.1)
    act2: Static[Callable] = partial(jnp.clip, min=0.0)
    shape: Static[tuple] = tuple([2, 3])
"""

VALUES_BY_HAND = """\
import functools
from functools import partial
from typing import Callable

import equinox as eqx
import jax
import jax.numpy as jnp


class M(eqx.Module):
    w: jax.Array
    act: Callable = eqx.field(default=functools.partial(jax.nn.leaky_relu, negative_slope=0.1), static=True)
    act2: Callable = eqx.field(default=partial(jnp.clip, min=0.0), static=True)
    shape: tuple = eqx.field(default=tuple([2, 3]), static=True)
"""  # noqa: E501


def _module_run(source: str) -> tuple[int, list[float], int]:
    import sys
    import types
    import warnings

    import jax
    import jax.numpy as jnp

    module = types.ModuleType("jaxrewrite_test_values")  # dataclasses look the module up
    sys.modules[module.__name__] = module
    try:
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore", jaxrewrite.NotRewrittenWarning
            )  # exec'd text is never the hook's
            exec(compile(source, "values.py", "exec"), module.__dict__)
    finally:
        del sys.modules[module.__name__]
    namespace = module.__dict__
    traces = []

    @jax.jit
    def run(m, x):  # type: ignore[no-untyped-def]
        traces.append(1)
        return m.act2(m.act(m.w * x)).sum() + sum(m.shape)

    m = namespace["M"](-jnp.ones(3))  # type: ignore[operator]
    return len(jax.tree_util.tree_leaves(m)), [float(run(m, 2.0)), float(run(m, 3.0))], len(traces)


def test_a_static_field_whose_value_is_a_library_call_is_its_default() -> None:
    """A partial, a jnp or builtin call gives a value, never a dataclass field: it becomes the
    field's default (issue 42, item 11: it was JR131), run beside the Module by hand."""
    rewritten = jaxrewrite_source(VALUES)
    assert (
        "field(default=functools.partial(jax.nn.leaky_relu, negative_slope=0.1), static=True)"
        in rewritten
    )
    assert _module_run(rewritten) == _module_run(VALUES_BY_HAND) == (1, [5.0, 5.0], 1)


@pytest.mark.parametrize("value", ["make_act()", "helpers.act()", "eqx.nn.Lambda(jnp.tanh)"])
def test_a_call_that_may_give_a_field_is_still_refused(value: str) -> None:
    """An unknown callee may return a dataclass field (``def make_act(): return
    eqx.field(...)``)."""
    source = VALUES.replace("tuple([2, 3])", value)
    codes = [d.code for d in jaxrewrite_analyze(source).errors]
    assert codes == ["JR131"], codes


def jaxrewrite_source(source: str) -> str:
    from jaxrewrite import rewrite_source

    return rewrite_source(source, "values.py")


def jaxrewrite_analyze(source: str):  # type: ignore[no-untyped-def]
    from jaxrewrite import analyze

    return analyze(source, "values.py")


HAND_SPELLED = """\
# jaxrewrite: enable
import jax
import jaxrewrite
from jaxrewrite import Static

from pkg.base import AbstractModel


class Head(AbstractModel):
    mode: Static[str] = {value}
    keep: Static[int] = jaxrewrite.field(default=1)
"""


@pytest.mark.parametrize(
    "value",
    [
        'jaxrewrite.field(static=True, default="sum")',
        "__import__('jaxrewrite').field(default=\"sum\", static=True)",  # the rewrite's own text
    ],
)
def test_a_field_already_spelled_jaxrewrite_field_is_applied_not_reported(value: str) -> None:
    """A library spells a Static field ``jaxrewrite.field(static=True)`` so that it means the same
    without the hook (guide §14): the marker agrees with the value, nothing is edited there, and
    nothing is reported (it was JR008, "does nothing"), as for ``eqx.field(static=True)`` on a
    Module of the module; the rewritten text, checked again, reports nothing either."""
    from jaxrewrite import analyze

    source = HAND_SPELLED.format(value=value)
    found = analyze(source, "head.py", lint=True)
    assert [d.code for d in found.diagnostics] == []
    assert [(e.name, e.state.name) for e in found.ledger] == [
        ("Head.mode", "APPLIED"),
        ("Head.keep", "APPLIED"),
    ]
    rewritten = jaxrewrite_source(source)
    assert rewritten.splitlines()[9] == f"    mode: Static[str] = {value}"  # left as written
    assert "keep: Static[int] = jaxrewrite.field(default=1, static=True)" in rewritten
    assert [d.code for d in analyze(rewritten, "head.py", lint=True).diagnostics] == []
