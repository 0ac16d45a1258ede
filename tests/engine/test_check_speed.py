"""What makes ``check`` fast (issue 45 item 4), each shown to change no finding: the needle for
the trace-time analysis (JR006: a module is parsed only where its code names a tracing transform,
``filters.code_mentions``, never for a name in a docstring or a comment; over jax's source it admits
121 of the 240 files that hold a transform's name anywhere), the import search at C speed, and
the alias search reading each scope once.
"""

from __future__ import annotations

import ast
from pathlib import Path

import jax
import pytest
from support import jaxrewrite, write

from jaxrewrite.commands.check import check_text
from jaxrewrite.engine.findings import trace_findings
from jaxrewrite.engine.findings.tracetime import may_trace
from jaxrewrite.engine.read.filters import code_mentions, last_word

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("jit", "vmap")

MENTIONS = [
    ("x = jax.jit(f)", True),
    ("from jax import vmap as v", True),
    ("vmap=1", True),
    ("# jax.jit(f)\nx = 1", False),
    ('"""Compiled with jit."""\nx = 1', False),
    ("x = 'jit' + r'vmap' + b'jit' + u'jit'", False),
    ("x = '''a\njit\n'''", False),
    ("x = my_jit(f) + jit_all + _vmap + vmapped", False),
    # an f-string's fields are code; a plain f-string holds none
    ('y = f"{jax.jit(g)(1)}"', True),
    ('y = Rf"{jit}"', True),
    ('y = f"under jit"', False),
    ('y = f"{x}" + "jit"', False),
    # where the lexer cannot be sure, the text counts as code
    ("s = 'unterminated\nx = jit(f)", True),
    ("x = 1\r# c\rjit(f)", True),
    ('y = f"{d["k"] + jit(g)(x)}"', True),  # PEP 701: a quote inside a field
    ("s = '''a'''\njit", True),
]


@pytest.mark.parametrize(("text", "expected"), MENTIONS, ids=[repr(t)[:40] for t, _ in MENTIONS])
def test_code_mentions(text: str, expected: bool) -> None:
    assert code_mentions(text, NAMES) is expected


MAY_TRACE = [
    ("import jax\n\n@jax.jit\ndef f(x):\n    return x\n", True),
    ("from jax.experimental.pjit import pjit\ng = pjit(f)\n", True),
    ("import jax.experimental.pjit as pj\n", True),  # pj may be used anywhere
    ("from jax import jit as J\n", True),
    ("g = jax.jit\\\n    .lower\n", True),  # a backslash is not read: counted
    ("g = api.jit\n(f)\n", True),
    # a name followed by "." is a module or an object, one followed by import a module path
    ("out = pjit.jit_p.bind(x)\nrules[remat.remat_p] = r\n", False),
    (
        "from jax._src.pjit import reshard\nfrom jax._src.interpreters.remat import remat_jaxpr\n",
        False,
    ),
    ("f = jax.jit (g).lower\n", True),
    ("f = jax.jit\n  .lower(g)\n", False),
]


@pytest.mark.parametrize(("text", "expected"), MAY_TRACE, ids=[repr(t)[:40] for t, _ in MAY_TRACE])
def test_may_trace_reads_references_not_module_paths(text: str, expected: bool) -> None:
    assert may_trace(text) is expected


def test_last_word_reads_words_as_regular_expressions_do() -> None:
    import re

    pattern = re.compile(r"\b(?:jit|vmap)\b")
    for text in ("jit", "xjit jit_ é jit", "vmap(jit)", "jité", "ajit", "", "jit\njitjit vmap"):
        found = [m.start() for m in pattern.finditer(text)]
        assert last_word(text, NAMES) == (found[-1] if found else -1), text


FSTRING_USE = """\
import jax
import jax.numpy as jnp


def f(x, n):
    return jnp.zeros(n) + x


def main():
    print(f"{jax.jit(f)(1.0, 3)}")
"""


def test_a_use_inside_an_fstring_is_still_analyzed(tmp_path: Path) -> None:
    """The neighbour the masking could hide: the only use of ``jax.jit`` is a field of an
    f-string. JAX rejects the program; check must say so."""
    found = [d for d in check_text(FSTRING_USE, "m.py") if d.code == "JR006"]
    assert len(found) == 1 and "'n' is traced by jit" in found[0].message
    namespace: dict[str, object] = {}
    exec(compile(FSTRING_USE, "m.py", "exec"), namespace)
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
        namespace["main"]()  # type: ignore[operator]


def test_names_only_in_docstrings_and_comments_are_not_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cost the needle saves: no parse for a module whose code names no tracing transform."""
    parsed: list[str] = []
    real = ast.parse

    def counting(source: str, filename: str = "<unknown>") -> ast.Module:
        parsed.append(filename)
        return real(source, filename)

    monkeypatch.setattr(ast, "parse", counting)
    assert (
        check_text(
            '"""Run it under jax.jit."""\n# or vmap it\ndef f(n):\n    return range(n)\n', "doc.py"
        )
        == []
    )
    assert parsed == []
    check_text("import jax\n\n\n@jax.jit\ndef f(n):\n    return range(n)\n", "code.py")
    assert parsed == ["code.py"]


def test_a_named_file_that_does_not_parse_is_jr100_whatever_it_mentions(tmp_path: Path) -> None:
    """Issue 45: a file named on the command line is read as Python source, also where the
    needle rules the analysis out (a transform named in a comment only, or JR006 not selected)."""
    write(tmp_path / "comment.py", "x = (1,\n# under jax.jit\n")
    write(tmp_path / "code.py", "import jax\nf = jax.jit(g\n")
    done = jaxrewrite("check", "--no-cache", "comment.py", "code.py", cwd=tmp_path)
    assert done.returncode == 1
    assert "comment.py:1:5: JR100" in done.stdout and "code.py:2:" in done.stdout
    walked = jaxrewrite(
        "check", "--no-cache", ".", cwd=tmp_path
    )  # the walk parses what it must only
    assert "comment.py" not in walked.stdout and "code.py:2:" in walked.stdout


def _corpus() -> list[Path]:
    folders = ("golden", "tests/rules/tracetime_cases", "tests/rules/dataflow_corpus")
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def test_the_needle_admits_every_module_with_a_finding() -> None:
    """A superset, checked over every program the repository keeps: where JR006 is found, the
    needle admits the text (and a mention moved into a comment or a docstring alone is not)."""
    found = 0
    for path in _corpus():
        text = path.read_text(encoding="utf-8")
        try:
            findings = trace_findings(text, str(path))
        except SyntaxError:
            continue
        if findings:
            found += 1
            assert may_trace(text), path
    assert found >= 40, found


def test_jax_itself_is_read_the_same() -> None:
    """Over jax's own source: a module the needle leaves out has no finding (every one here)."""
    root = Path(jax.__file__).parent
    left_out = 0
    for path in sorted(root.rglob("*.py"))[::7]:
        text = path.read_text(encoding="utf-8")
        if not may_trace(text) and any(
            n in text for n in ("jit", "vmap", "pmap", "remat", "checkpoint")
        ):
            left_out += 1
            assert trace_findings(text, str(path)) == [], path
    assert left_out >= 5, left_out


_OLD_IMPORTS = (
    r"(?:^|[;:])[ \t]*(?:from[ \t]+(\.+[\w.]*|[\w.]+)[ \t]+import\b|import[ \t]+((?:[\w. "
    r"\t,]|\\\r?\n)+))"
)
IMPORT_TEXTS = [
    "import a\nfrom .b import c\n",
    "x = 1; import a, b as c\nif x: from d import e\n",
    "import a, \\\n    b\nimport c\n",
    "  import a\n\timport b\r\nimport c",
    "from . import a;from ..b.c import d:import e",
    "s = 'import not_a_module'\n# from x import y\n",
]


def test_the_import_search_reads_what_the_multiline_pattern_read() -> None:
    """``imported_def._IMPORT_TEXT`` starts with a character class (C speed) instead of ``^`` in
    multiline mode: the same modules, over tricky texts and over jax's and numpy's source."""
    import re

    import numpy

    from jaxrewrite.engine.findings.checks.imported_def import _IMPORT_TEXT

    old = re.compile(_OLD_IMPORTS, re.MULTILINE)
    texts = list(IMPORT_TEXTS)
    for package in (jax, numpy):
        texts += [
            p.read_text(encoding="utf-8")
            for p in sorted(Path(str(package.__file__)).parent.rglob("*.py"))[::3]
        ]
    for text in texts:
        assert [m.groups() for m in _IMPORT_TEXT.finditer("\n" + text)] == [
            m.groups() for m in old.finditer(text)
        ]


ALIASES = """\
import jax


def f(x, n):
    return x


def outer():
    g = f
    h = jax.jit(g)
    for k in (g, h):
        jax.grad(k)(1.0, 2)
    return h(1, 2)


fast = jax.jit(f)
again = fast
batched = jax.vmap(again)
"""


def test_the_alias_search_reads_each_scope_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``calls_and_aliases`` follows aliases to any depth: the pairs of a scope are read once
    (its bindings never change once made)."""
    from jaxrewrite.engine.read import filters
    from jaxrewrite.engine.read.scopes import build_scopes
    from jaxrewrite.engine.read.source import Source

    read: list[int] = []
    real = filters._pairs

    def counting(scope: object, attributes: bool) -> list[tuple[str, str]]:
        read.append(id(scope))
        return real(scope, attributes)  # type: ignore[arg-type]

    monkeypatch.setattr(filters, "_pairs", counting)
    for shortcuts in (filters.FAST, filters.EXHAUSTIVE):
        read.clear()
        src = Source(ALIASES, "m.py")
        tree = build_scopes(ast.parse(ALIASES), ALIASES)
        found = filters.calls_and_aliases(["f"], tree, src, shortcuts)
        if shortcuts is filters.FAST:  # EXHAUSTIVE finds every call of every statement
            assert [ast.unparse(call) for call, _, _ in found] == [
                "jax.jit(g)",
                "jax.grad(k)(1.0, 2)",
                "jax.grad(k)",
                "jax.jit(f)",
                "jax.vmap(again)",
            ]
        # EXHAUSTIVE searches no line, so it follows no alias.
        wanted = len(tree.scopes) if shortcuts is filters.FAST else 0
        assert len(read) == len(set(read)) == wanted


def _loops_by_bracket(text: str) -> tuple[tuple[int, frozenset[str], frozenset[str]], ...]:
    """``filters._loops`` as it was read before: ``\\bfor\\b`` searched (now ``word_starts``),
    then a loop per bracket and line break (now ``filters._line_end``)."""
    import re

    from jaxrewrite.engine.read.filters import _LOOP_REACH, IDENTIFIER

    found = []
    heads = list(re.finditer(r"\bfor\b", text))
    for index, head in enumerate(heads):
        following = heads[index + 1].start() if index + 1 < len(heads) else len(text)
        end = min(following, head.start() + _LOOP_REACH)
        depth = 0
        for mark in re.finditer(r"[()\[\]{}]|\n", text[:end]):
            if mark.start() < head.end():
                continue
            char = mark.group()
            if char == "\n":
                if depth <= 0:
                    end = mark.start()
                    break
            elif char in "([{":
                depth += 1
            else:
                depth -= 1
        words = [m.group() for m in IDENTIFIER.finditer(text, head.end(), end)]
        if "in" in words:
            at = words.index("in")
            found.append((head.start(), frozenset(words[:at]), frozenset(words[at + 1 :])))
    return tuple(found)


LOOPS = [
    "for fn in (f, g):\n    jax.jit(fn)\n",
    "xs = [h(x) for x in (f,\n    g) if x]\nfor k, v in zip(keys, (f, g)): pass\n",
    "for a in b)) ]\nfor c in (d,\n",
    "before_for for_ after for \u00e9for for",
    "'''for example in docs'''\nfor\nin x",
]


def test_loops_read_each_line_once_as_the_bracket_loop_did() -> None:
    from jaxrewrite.engine.read.filters import _loops

    texts = list(LOOPS) + [
        p.read_text(encoding="utf-8") for p in sorted(Path(jax.__file__).parent.rglob("*.py"))[::9]
    ]
    for text in texts:
        assert _loops.__wrapped__(text) == _loops_by_bracket(text)


PLAIN = """\
import jax
import jax.numpy as jnp


@jax.jit
def f(x: jax.Array, n: int, m: "int"):
    return jnp.zeros(n) + x
"""

MARKED = """\
# jaxrewrite: enable
import jax
import jax.numpy as jnp
from jaxrewrite import Static

Size = Static[int]


@jax.jit
def f(x: jax.Array, n: Size, m: int):
    return jnp.zeros(n) + jnp.zeros(m) + x
"""


def test_annotations_that_name_no_marker_are_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every def is read for JR006, but an annotation naming no spelling of a marker holds none:
    in a module that never names jaxrewrite no annotation is read, and the findings stay."""
    from jaxrewrite.engine.read import signature

    read: list[str] = []
    real = signature.MarkerReader._top_once

    def counting(self: signature.MarkerReader, expr: ast.expr, *args: object) -> object:
        read.append(ast.unparse(expr))
        return real(self, expr, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(signature.MarkerReader, "_top_once", counting)
    plain = check_text(PLAIN, "plain.py")
    assert [(d.code, d.line) for d in plain] == [("JR006", 7)] and read == []
    marked = check_text(MARKED, "marked.py")
    assert [(d.code, d.line) for d in marked] == [("JR006", 11)]  # m, not n: Size is Static
    assert "Size" in read and "int" not in read


def test_any_word_is_the_word_pattern_searched() -> None:
    """``imported_def.may_apply_imported`` reads the table's names with ``any_word``: the same
    answer as ``\\b(?:...)\\b`` searched, over tricky texts and over jax's source."""
    import re

    from jaxrewrite.engine.findings.checks.imported_def import _TABLE_NAMES
    from jaxrewrite.engine.read.filters import any_word

    pattern = re.compile(r"\b(?:" + "|".join(_TABLE_NAMES) + r")\b")
    texts = ["gradient", "x.grad", "grad_fn = 1", "value_and_grad(f)", "égrad grad", "jitter", ""]
    texts += [
        p.read_text(encoding="utf-8") for p in sorted(Path(jax.__file__).parent.rglob("*.py"))[::5]
    ]
    for text in texts:
        assert any_word(text, _TABLE_NAMES) is (pattern.search(text) is not None), text[:40]
