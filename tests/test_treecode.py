"""The hook's tree route (engine/treecode.py) gives byte for byte the code of the printed text.

For every golden input and every corpus text that rewrites, ``marshal.dumps`` of the code
compiled from the rewritten tree equals that of compiling ``rewrite_source``'s text; the text
``rewrite_tree`` prints is ``rewrite_source``'s; ``JAXREWRITE_VERIFY_AST=1`` makes the hook check
the same at import and fail loudly when they differ.
"""

from __future__ import annotations

import ast
import marshal
import warnings
from pathlib import Path

import pytest

from corpus_support import convert_corpus, corpus_files
from golden_cases import display_name, inputs
from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite.engine import treecode
from jaxrewrite.hook import pipeline

OPTIMIZE = (-1, 2)


def _compare(source: str, filename: str) -> str | None:
    """The route the hook takes ('tree' or 'text'), None when the engine refuses; asserts that
    what the hook compiles is byte for byte the code of ``rewrite_source``'s text."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = rewrite_source(source, filename)
        except SyntaxError:  # RewriteError too: the tree route raises the same
            with pytest.raises(SyntaxError):
                treecode.rewrite_tree(source, filename)
            return None
        result = treecode.rewrite_tree(source, filename)
        route = "text" if result.tree is None else "tree"
        assert result.text == expected, filename
        del result
        for optimize in OPTIMIZE:
            # Both held by one name each: marshal flags an object by its reference count.
            code = pipeline.compile_rewritten(source, filename, optimize)
            from_text = compile(expected, filename, "exec", dont_inherit=True, optimize=optimize)
            assert marshal.dumps(code) == marshal.dumps(from_text), (filename, optimize, route)
    return route


def test_every_golden_input_compiles_the_same_from_its_tree() -> None:
    routes: dict[str | None, int] = {}
    for path in inputs():
        route = _compare(path.read_text(encoding="utf-8"), display_name(path))
        routes[route] = routes.get(route, 0) + 1
    print(f"\n[treecode] golden inputs by route: {routes}")
    assert routes.get("tree", 0) >= 35, routes


def test_every_rewriting_corpus_text_compiles_the_same_from_its_tree() -> None:
    routes: dict[str | None, int] = {}

    def rewrite(text: str, filename: str) -> str:
        route = _compare(text, filename)
        routes[route] = routes.get(route, 0) + 1
        return rewrite_source(text, filename)

    convert_corpus(corpus_files(), rewrite)
    print(f"\n[treecode] corpus texts by route: {routes}")
    assert routes.get("tree", 0) >= 20, routes


MODULE = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static


@jax.jit
def f(x, n: Static[int]):  # é on the decorated line's neighbour
    return x * n
"""


def test_hook_checks_the_tree_against_the_text(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = treecode.rewrite_tree

    def wrong(text: str, path: str, header: object = None) -> treecode.Rewritten:
        good = real(text, path)
        assert good.tree is not None
        return treecode.Rewritten(good.text, ast.parse(good.text.replace("x * n", "x + n")))

    monkeypatch.setattr(treecode, "rewrite_tree", wrong)
    monkeypatch.setenv("JAXREWRITE_VERIFY_AST", "1")
    with pytest.raises(AssertionError, match="internal error: mod.py: the code compiled from the rewritten tree"):
        pipeline.compile_source(MODULE.encode(), "mod.py")
    monkeypatch.setattr(treecode, "rewrite_tree", real)
    code = pipeline.compile_source(MODULE.encode(), "mod.py")
    from_text = compile(rewrite_source(MODULE, "mod.py"), "mod.py", "exec", dont_inherit=True)
    assert marshal.dumps(code) == marshal.dumps(from_text)


@pytest.mark.parametrize(
    "tail",
    [
        "g = jax.jit(lambda x, n: x, static_argnums=())\nh = jax.jit(f)\n",  # a call site: text route
    ],
)
def test_edits_outside_decorators_take_the_text_route(tail: str) -> None:
    source = MODULE + "\n\ndef k(x, n: Static[int]):\n    return x\n\n\nkk = jax.jit(k)\n" + tail
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = treecode.rewrite_tree(source, "m.py")
    assert result.text == rewrite_source(source, "m.py") and result.tree is None


def test_refusals_are_the_same() -> None:
    bad = MODULE.replace("n: Static[int]", "*n: Static[int]")
    with pytest.raises(RewriteError) as text_error:
        rewrite_source(bad, "m.py")
    with pytest.raises(RewriteError) as tree_error:
        treecode.rewrite_tree(bad, "m.py")
    assert str(text_error.value) == str(tree_error.value)
