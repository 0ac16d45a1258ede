"""The cheap pre-filters only skip work: with every one of them disabled the output is the same.

They decide by name and by text search what the planner looks at (defs whose signature
lines mention a marker name, function bodies with a def or decorator line, lines where a
marked name is a first argument). A filter that wrongly skips something would silently drop
statics, so every golden input and a set of awkward layouts are rewritten both ways.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from golden_cases import GOLDEN, inputs
from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite import plan, prefilter, scopes, signature
from jaxrewrite.scopes import Scope, ScopeTree
from jaxrewrite.source import Source

LAYOUTS = {
    "signature ends on the body line": """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

@jax.jit
def f(x,
      n: Static[int]): return x
""",
    "call site split over lines with a comment": """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

def f(x, n: Static[int]):
    return x

g = jax.jit(  # the function comes next
    f,
)
h = jax.jit((f))
""",
    "nested def in a body without decorators on its own line": """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

def outer():
    x = 1; \\
    y = 2
    inner = jax.jit(lambda a: a)
    def helper(a, n: Static[int]): return a
    return jax.vmap(helper)
""",
    "marker alias used far away": """\
# jaxrewrite: enable
import jax
import jaxrewrite as jr

S = jr.Static[int]
T = S

@jax.jit
def f(x, n: T, m: "S"):
    return x
""",
    "call site inside a deferred body": """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

def f(x, n: Static[int]):
    return x

def build(flag):
    if flag:
        return jax.pmap(f)
    return [jax.jit(f) for _ in range(2)]
""",
    "class with static fields registered later": """\
# jaxrewrite: enable
import dataclasses
import jax
from jaxrewrite import Static

@dataclasses.dataclass
class P:
    x: jax.Array
    n: Static[int]

def register():
    jax.tree_util.register_dataclass(P)
""",
}


def _everything(names: list[str], tree: ScopeTree, src: Source) -> list[tuple[ast.Call, Scope]]:
    """calls_naming with no text search: every call of every statement, deferred bodies too."""
    tree.walk_deferred(list(range(1, len(src.line_starts) + 1)))
    found = []
    for _, _, stmt, scope in tree.statements:
        for expr in prefilter._own_expressions(stmt):
            found.extend((node, scope) for node in ast.walk(expr) if isinstance(node, ast.Call))
    unique = {id(call): (call, scope) for call, scope in found}
    return sorted(unique.values(), key=lambda item: (item[0].lineno, item[0].col_offset))


def _outcome(source: str, name: str) -> str:
    try:
        return rewrite_source(source, name)
    except RewriteError as err:
        return f"RewriteError: {err}"
    except SyntaxError as err:
        return f"SyntaxError: {err.lineno}"


CASES = [(p.relative_to(GOLDEN).as_posix(), p.read_text(encoding="utf-8")) for p in inputs()]
CASES += list(LAYOUTS.items())


@pytest.mark.parametrize(("name", "source"), CASES, ids=[name for name, _ in CASES])
def test_prefilters_change_nothing(name: str, source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    filtered = _outcome(source, name)
    monkeypatch.setattr(plan, "_header_mentions", lambda func, lines: True)
    monkeypatch.setattr(plan, "may_matter", lambda func, names, leaves: True)
    monkeypatch.setattr(plan, "calls_naming", _everything)
    monkeypatch.setattr(signature.MarkerReader, "_relevant", lambda self, expr: True)
    monkeypatch.setattr(scopes, "_structural_lines", lambda text, starts: list(range(1, len(starts) + 1)))
    assert _outcome(source, name) == filtered


def test_layouts_are_rewritten() -> None:
    """The layouts above are not vacuous: each has something to rewrite."""
    for name, source in LAYOUTS.items():
        assert _outcome(source, name) != source, name


def test_golden_inputs_exist() -> None:
    assert len(CASES) > 60 and Path(GOLDEN).is_dir()
