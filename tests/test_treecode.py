"""The hook's tree route (hook/fast/treecode.py) gives byte for byte the code of the printed text.

For every golden input (here) and every corpus text that rewrites (tests/test_corpus.py, which
calls ``compare`` on each text it rewrites), ``marshal.dumps`` of the code the hook compiles
equals that of compiling ``rewrite_source``'s text; the text
``rewrite_tree`` prints is ``rewrite_source``'s; ``JAXREWRITE_VERIFY_AST=1`` makes the hook check
the same at import and fail loudly when they differ.
"""

from __future__ import annotations

import ast
import marshal
import math
import sys
import warnings
from pathlib import Path

import pytest

from golden_cases import display_name, inputs
from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite.hook import fast, pipeline
from jaxrewrite.hook.fast import treecode
from treecode_support import compare


def test_every_golden_input_compiles_the_same_from_its_tree() -> None:
    routes: dict[str | None, int] = {}
    for path in inputs():
        route = compare(path.read_text(encoding="utf-8"), display_name(path))
        routes[route] = routes.get(route, 0) + 1
    print(f"\n[treecode] golden inputs by route: {routes}")
    assert routes.get("tree", 0) >= 35, routes


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

    def wrong(text: str, path: str, header: object = None, worth: float = 0, report: bool = False) -> treecode.Rewritten:
        good = real(text, path, worth=math.inf)
        assert good.tree is not None
        return treecode.Rewritten(good.text, [], ast.parse(good.text.replace("x * n", "x + n")))

    monkeypatch.setattr(fast, "rewrite_tree", wrong)
    monkeypatch.setenv("JAXREWRITE_VERIFY_AST", "1")
    with pytest.raises(AssertionError, match="internal error: mod.py: the code compiled from the rewritten tree"):
        pipeline.compile_source(MODULE.encode(), "mod.py")
    monkeypatch.setattr(fast, "rewrite_tree", real)
    code = pipeline.compile_source(MODULE.encode(), "mod.py")
    from_text = compile(rewrite_source(MODULE, "mod.py"), "mod.py", "exec", dont_inherit=True)
    assert marshal.dumps(code) == marshal.dumps(from_text)


CALL_SITES = """
def k(x, n: Static[int]):
    return x


kk = jax.jit(k)
kv = jax.vmap(k, in_axes=(0, None))
"""

FIELD = """
import equinox as eqx


class Cfg(eqx.Module):
    width: Static[int]
"""

MULTILINE = """
@functools.partial(
    jax.jit,
    donate_argnums=(0,),  # a comment inside
)
def m(x, n: Static[int]):
    return x
"""


@pytest.mark.parametrize(
    ("tail", "route"),
    [
        (CALL_SITES, "tree"),  # call sites are completed in place, as nodes
        (MULTILINE, "tree"),  # a decorator over several lines keeps them
        (FIELD, "text"),  # field forms are not spelled as nodes
    ],
    ids=["call sites", "multi-line decorator", "field form"],
)
def test_which_edits_take_which_route(tail: str, route: str) -> None:
    source = MODULE.replace("import jax\n", "import functools\nimport jax\n") + tail
    assert compare(source, "m.py") == route


def test_two_on_one_line_take_the_text_route() -> None:
    """What one edit moves on a line, the other's columns would not see: the text route."""
    one_line = MODULE + "\n\ndef k(x, n: Static[int]): return x\nkk, kj = jax.jit(k), jax.jit(k)\n"
    assert compare(one_line, "m.py") == "text"


def _module(helpers: int, decorated: int) -> str:
    body = [MODULE]
    for i in range(helpers):
        body.append(f"\n\ndef helper_{i}(x, y):\n    z = x + y\n    for k in range(3):\n        z = z * k - y\n    return z\n")
    for i in range(decorated):
        body.append(f"\n\n@jax.jit\ndef g_{i}(x, n: Static[int]):\n    return x * n\n")
    return "".join(body)


def test_the_tree_is_built_only_where_it_pays() -> None:
    """Parsing the new text costs more per byte than the second parse saves: a module that is
    mostly new decorator text (every def decorated, two-line bodies) keeps the text route."""
    for source, route in ((_module(200, 10), "tree"), (_module(0, 200), "text")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = treecode.rewrite_tree(source, "m.py")
        assert ("text" if result.tree is None else "tree") == route
        assert result.text == rewrite_source(source, "m.py")
        del result
        code = pipeline.compile_rewritten(source, "m.py", -1)
        from_text = compile(rewrite_source(source, "m.py"), "m.py", "exec", dont_inherit=True)
        assert marshal.dumps(code) == marshal.dumps(from_text)


def test_refusals_are_the_same() -> None:
    bad = MODULE.replace("n: Static[int]", "*n: Static[int]")
    with pytest.raises(RewriteError) as text_error:
        rewrite_source(bad, "m.py")
    with pytest.raises(RewriteError) as tree_error:
        treecode.rewrite_tree(bad, "m.py")
    assert str(text_error.value) == str(tree_error.value)


# -- the nodes built without a parse (hook/fast/treenodes.py) ----------------------------------------

HEAD = "# jaxrewrite: enable\nimport functools\nfrom functools import partial\n\nimport jax\nfrom jaxrewrite import Static\n\n"

#: Layouts where what follows an edit on its line must move: each is compiled both ways and
#: compared byte for byte, and none may need the parse of its new text.
BUILT = {
    "bare decorator, comment after": "@jax.jit  # jitted\ndef f(x, n: Static[int]):\n    return x * n\n",
    "partial completed, keyword after": (
        '@partial(jax.jit, static_argnames=("n",), donate_argnums=(0,))\n'
        "def f(x, n: Static[int], m: Static[int]):\n    return x * n * m\n"
    ),
    "partial completed, lambda default after": (
        '@partial(jax.jit, static_argnames=("n",), inline=(lambda q=1: q)())\n'
        "def f(x, n: Static[int], m: Static[int]):\n    return x * n * m\n"
    ),
    "empty parentheses": "@functools.partial(jax.jit)\ndef f(x, n: Static[int]):\n    return x * n\n",
    "call site, conditional after": (
        "def f(x, n: Static[int]):\n    return x * n\n\n\nflag = True\ng = jax.jit(f) if flag else f\n"
    ),
    "call site in a list, then more": (
        "def f(x, n: Static[int]):\n    return x * n\n\n\ngs = [jax.jit(f), 1, (2, 3)]  # two\n"
    ),
    "call site returned, last statement of a method of a class": (
        "def f(x, n: Static[int]):\n    return x * n\n\n\nclass K:\n    def make(self):\n        return jax.jit(f)\n"
    ),
    "call site with a non-ASCII name before it": (
        "def f(x, n: Static[int]):\n    return x * n\n\n\nfé = jax.jit(f)  # é\n"
    ),
    "non-ASCII parameter names": "@jax.jit\ndef f(x, ñ: Static[int], ü: Static[int]):\n    return x * ñ * ü\n",
    "multi-line call site": "def f(x, n: Static[int]):\n    return x * n\n\n\ng = jax.jit(\n    f,  # the def\n)\n",
    "vmap call site with None axes": (
        "def f(x, n: Static[int]):\n    return x * n\n\n\nv = jax.vmap(f)(jax.numpy.ones(3), 2)\n"
    ),
    "partial completed, f-strings after": (
        '@partial(jax.jit, static_argnames=("n",), inline=len(f"{1 + 2:>{3}}") > 0)\n'
        "def f(x, n: Static[int], m: Static[int]):\n    return x\n"
    ),
    "call site, an f-string after it": "def f(x, n: Static[int]):\n    return x\n\n\ng = (jax.jit(f), f\"{1}\")\n",
    "tab-indented method": "class K:\n\t@jax.jit\n\tdef f(x, n: Static[int]):\n\t\treturn x * n\n",
    "two transforms stacked": "@jax.jit\n@jax.vmap\ndef f(x, n: Static[int]):\n    return x * n\n",
}


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The new texts the tree route had to parse (``treecode._placed``), as the test runs."""
    texts: list[str] = []
    real = treecode._placed

    def placed(replacements: list[tuple[object, str]]) -> object:
        texts.extend(new for _, new in replacements)
        return real(replacements)  # type: ignore[arg-type]

    monkeypatch.setattr(treecode, "_placed", placed)
    return texts


@pytest.mark.parametrize("body", list(BUILT.values()), ids=list(BUILT))
def test_edits_are_built_as_nodes_where_the_plan_says_what_they_spell(body: str, parsed: list[str]) -> None:
    assert compare(HEAD + body, "m.py") == "tree"
    assert parsed == []  # no new text had to be parsed


@pytest.mark.parametrize(
    "body",
    [
        # A value over several lines is replaced keeping its line breaks: that text is parsed.
        '@partial(jax.jit, static_argnames=(\n    "n",\n))\ndef f(x, n: Static[int], m: Static[int]):\n    return x\n',
        # Per-leaf statics: the helper's arguments are parsed.
        "from typing import NamedTuple\n\n\nclass P(NamedTuple):\n    a: Static[int]\n    b: float\n\n\n"
        "@jax.jit\ndef f(p: P):\n    return p.b * p.a\n",
    ],
    ids=["multi-line value", "per-leaf statics"],
)
def test_what_is_not_built_is_parsed_and_still_the_same_code(body: str, parsed: list[str]) -> None:
    assert compare(HEAD + body, "m.py") == "tree"
    assert parsed


@pytest.mark.skipif(
    sys.platform == "emscripten",
    reason="under Pyodide the engine's walks overflow JavaScript's stack at this depth (a fatal error, never the RecursionError engine/read/depth.py retries on)",
)
def test_an_expression_too_deep_for_a_tree_object_compiles_from_the_text() -> None:
    """Compiling a tree object walks it within Python's recursion limit, compiling text within
    the parser's deeper one: a 2500-term generated sum compiles as text only (on 3.10 to 3.12),
    so the hook compiles the text there instead of failing where ``python`` succeeds."""
    text = MODULE.replace("return x * n", "return " + " + ".join(["x"] * 2500) + " + n")
    printed = rewrite_source(text, "deep.py")
    code = pipeline.compile_rewritten(text, "deep.py", -1, worth=math.inf)
    assert marshal.dumps(code) == marshal.dumps(compile(printed, "deep.py", "exec", dont_inherit=True))
    namespace: dict[str, object] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # exec'd code is from no file: NotRewrittenWarning says so
        exec(code, namespace)
    assert namespace["f"](1.0, 3) == 2503.0  # type: ignore[operator]
