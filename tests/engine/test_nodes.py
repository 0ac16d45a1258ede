"""``engine.read.nodes``: the faster walks read what ``ast``'s do, in the same order, the context
and operator leaves left out (the walks of ``check``'s trace-time pass, issue 45 item 4)."""

from __future__ import annotations

import ast
from pathlib import Path

import jax
import pytest

from jaxrewrite.engine.read.nodes import bindings, blocks, child_nodes, family, statements, walk

ROOT = Path(__file__).resolve().parents[2]
LEAVES = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)

SNIPPETS = [
    "def f(a, /, b: int = 1, *c, d=2, **e) -> None:\n    return a + b if c else -d\n",
    "async def g():\n    async with x as (y, z):\n        await y\n    async for i in j: pass\n",
    "class C(B, metaclass=M):\n    x: int = 1\n    @dec\n"
    "    def m(self): return [i for i in self if i not in (1, 2)]\n",
    "match p:\n    case {'k': [a, *rest]} | Point(x=0) as q if q: pass\n    case None: pass\n",
    "try:\n    pass\nexcept (A, B) as e:\n    raise X from e\nelse:\n"
    "    del a[1:2, ::3]\nfinally:\n    global g\n",
    "x = f'{a!r:>{w}}' + b'y' + ...; lambda: (yield)\nimport a.b as c\nfrom . import d\n",
    "while not (a and b or c): x += 1; print(*args, **kw)\n",
]


def _trees() -> list[ast.AST]:
    trees: list[ast.AST] = [ast.parse(text) for text in SNIPPETS]
    for path in sorted(Path(jax.__file__).parent.rglob("*.py"))[::25]:
        trees.append(ast.parse(path.read_text(encoding="utf-8")))
    for path in sorted((ROOT / "golden").rglob("*.py"))[::5]:
        trees.append(ast.parse(path.read_text(encoding="utf-8")))
    return trees


@pytest.fixture(scope="module")
def trees() -> list[ast.AST]:
    return _trees()


def test_walk_is_ast_walk_without_the_leaves(trees: list[ast.AST]) -> None:
    for tree in trees:
        assert [id(n) for n in walk(tree)] == [
            id(n) for n in ast.walk(tree) if not isinstance(n, LEAVES)
        ]


def test_child_nodes_are_iter_child_nodes_without_the_leaves(trees: list[ast.AST]) -> None:
    for tree in trees:
        for node in ast.walk(tree):
            expected = [id(c) for c in ast.iter_child_nodes(node) if not isinstance(c, LEAVES)]
            assert [id(c) for c in child_nodes(node)] == expected, ast.dump(node)[:80]


def _family_by_hand(root: ast.AST) -> list[tuple[int, int, int]]:
    """What ``passed.Sites`` walked before ``family``: a stack, each child with its parent and
    the def or lambda around it."""
    out = []
    stack = [(root, root)]
    while stack:
        node, enclosing = stack.pop()
        inner = (
            node
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            else enclosing
        )
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, LEAVES):
                out.append((id(child), id(node), id(inner)))
            stack.append((child, inner))
    return out


def test_family_is_the_stack_walk_with_parents_and_scopes(trees: list[ast.AST]) -> None:
    for tree in trees:
        assert [(id(c), id(p), id(s)) for c, p, s in family(tree)] == _family_by_hand(tree)


def _own_by_hand(node: ast.AST, out: list[int]) -> None:
    """Every statement below ``node``, not into the bodies of defs and classes."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            out.append(id(child))
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            _own_by_hand(child, out)


def test_statements_are_every_statement_each_before_its_blocks(trees: list[ast.AST]) -> None:
    for tree in trees:
        found = list(statements(tree.body))
        every = [id(n) for n in ast.walk(tree) if isinstance(n, ast.stmt)]
        assert sorted(map(id, found)) == sorted(every)
        at = {id(stmt): i for i, stmt in enumerate(found)}
        for stmt in found:
            assert all(at[id(s)] > at[id(stmt)] for block, _ in blocks(stmt) for s in block)
        own: list[int] = []
        _own_by_hand(tree, own)
        assert sorted(id(s) for s in statements(tree.body, into_defs=False)) == sorted(own)


def test_blocks_hold_body_orelse_finalbody_then_each_clause() -> None:
    tree = ast.parse(SNIPPETS[4] + "match p:\n    case 1: a\n    case _: b\n")
    try_, match = tree.body
    assert [(holder, block) for block, holder in blocks(try_)] == [
        (try_, try_.body),
        (try_, try_.orelse),
        (try_, try_.finalbody),
        (try_.handlers[0], try_.handlers[0].body),
    ]
    assert [holder for _, holder in blocks(match)] == match.cases
    assert list(blocks(try_.body[0])) == []


def test_bindings_own_scope_nested_scopes_and_declarations() -> None:
    func = ast.parse(
        "def f(p):\n"
        "    a = 1\n"
        "    b, c = 2, 3\n"
        "    import os.path as q, sys.x\n"
        "    global g\n"
        "    def h(arg):\n"
        "        inner = 0\n"
        "    k = lambda lam: 0\n"
        "    [x for x in range(3)]\n"
        "    a += 1\n"
    ).body[0]
    assert isinstance(func, ast.FunctionDef)
    names, values = bindings([func.args, *func.body])
    assert names == {"p", "a", "b", "c", "q", "sys", "g", "h", "k", "x"}
    assert {name: sorted(map(ast.unparse, vs)) for name, vs in values.items()} == {
        "a": ["1", "None"],
        "b": ["None"],
        "c": ["None"],
        "k": ["lambda lam: 0"],
        "x": ["None"],
    }
    assert bindings(func.body, nested=True)[0] == names - {"p"} | {"arg", "inner", "lam"}
    assert bindings(func.body, declared=False)[0] == names - {"p", "q", "sys", "g"}
