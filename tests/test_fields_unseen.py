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
