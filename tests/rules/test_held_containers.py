"""JR014: a TypedDict or NamedTuple with Static entries held in a field of a pytree class
(issue 42, item 6).

Per-leaf statics split a *parameter* of a transformed def; an Equinox Module, a flax.struct
dataclass or a registered dataclass flattens its fields like any pytree, so the entries of a
container held there are traced. Each case is labelled by running it under JAX (the entry drives
``range``), and ``check`` must say JR014 at the field; a field marked Static whole, and a class
that is no pytree, are quiet.
"""

from __future__ import annotations

import sys
import types
import warnings

import pytest

import jaxrewrite
from jaxrewrite import rewrite_source

pytest.importorskip("equinox")
pytest.importorskip("flax")

HEAD = """\
# jaxrewrite: enable
import dataclasses
from typing import NamedTuple, TypedDict

import equinox as eqx
import jax
import jax.numpy as jnp
from flax import struct
from jaxrewrite import Static


class Cfg(TypedDict):
    n: Static[int]


class Pair(NamedTuple):
    k: Static[int]


@jax.jit
def split(x, cfg: Cfg):  # the container's own use: its entries are applied here
    return x * sum(range(cfg["n"]))

"""

TRACED = {
    "Equinox Module": (
        "class M(eqx.Module):\n    w: jax.Array\n    cfg: Cfg\n\n"
        "M_ = M(jnp.ones(2), {'n': 3})\nGET = lambda m: m.cfg['n']\n"
    ),
    "flax.struct": (
        "@struct.dataclass\nclass M:\n    w: jax.Array\n    cfg: Cfg\n\n"
        "M_ = M(jnp.ones(2), {'n': 3})\nGET = lambda m: m.cfg['n']\n"
    ),
    "NamedTuple in a Module": (
        "class M(eqx.Module):\n    w: jax.Array\n    pair: Pair\n\n"
        "M_ = M(jnp.ones(2), Pair(3))\nGET = lambda m: m.pair.k\n"
    ),
    "registered dataclass": (
        "@jax.tree_util.register_dataclass\n@dataclasses.dataclass\nclass M:\n"
        "    w: jax.Array\n    cfg: Cfg\n\nM_ = M(jnp.ones(2), {'n': 3})\n"
        "GET = lambda m: m.cfg['n']\n"
    ),
}

QUIET = {
    "the field Static whole": (
        "class M(eqx.Module):\n    w: jax.Array\n"
        "    cfg: Static[Cfg] = eqx.field(static=True)\n\nM_ = M(jnp.ones(2), {'n': 3})\n"
        "GET = lambda m: m.cfg['n']\n"
    ),
}


def _runs(source: str) -> bool:
    module = types.ModuleType("jaxrewrite_test_held")
    sys.modules[module.__name__] = module
    try:
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore", jaxrewrite.NotRewrittenWarning
            )  # exec'd text is never the hook's
            exec(compile(rewrite_source(source, "m.py"), "m.py", "exec"), module.__dict__)
        namespace = module.__dict__
        run = __import__("jax").jit(lambda m: m.w * sum(range(namespace["GET"](m))))
        try:
            run(namespace["M_"])
        except Exception:  # noqa: BLE001 - the label: the entry is traced
            return False
        return True
    finally:
        del sys.modules[module.__name__]


def _codes(source: str) -> list[str]:
    return [
        d.code
        for d in jaxrewrite.analyze(source, "m.py", lint=True).diagnostics
        if d.code == "JR014"
    ]


@pytest.mark.parametrize("case", TRACED, ids=list(TRACED))
def test_a_container_with_static_entries_held_in_a_pytree_field_is_jr014(case: str) -> None:
    source = HEAD + TRACED[case]
    assert not _runs(source), "the label: JAX traces the entry"
    assert _codes(source) == ["JR014"]


@pytest.mark.parametrize("case", QUIET, ids=list(QUIET))
def test_quiet_where_the_entry_is_static(case: str) -> None:
    source = HEAD + QUIET[case]
    assert _runs(source)
    assert _codes(source) == []


def test_a_plain_class_holding_it_is_quiet() -> None:
    source = HEAD + "class Plain:\n    cfg: Cfg\n"
    assert _codes(source) == []
