"""The hook's skeleton (hook/fast/skeleton.py): function bodies the analysis leaves unwalked are not
parsed, and nothing downstream can tell.

1. The lexer: for each form a body can take (strings and brackets across a dedent, backslashes,
   comments, ``;``, multi-line headers, unicode, ``async``, ``match``, f-strings...), the skeleton
   with its left-out bodies read back is node for node, positions included, what ``ast.parse``
   gives; where the lexer cannot be sure (tabs or form feeds in indentation, ``\\r``, a PEP 701
   f-string with quotes inside a field, an unterminated string) there is no skeleton.
2. The same over every .py file of the installed jax, jaxlib and numpy (the README's half; all of
   them under ``JAXREWRITE_FULL=1``), with lower bounds so that it cannot quietly check nothing.
3. The rewrite read from the skeleton is ``rewrite_source``'s: every golden input and corpus text
   that rewrites (treecode_support.compare), and the cases where the analysis reads a left-out body
   (a call site inside it, a wrapper def it must look into).
4. The hook: where the skeleton's reading cannot decide (a syntax error in a left-out body, a
   RewriteError, a warning) the whole module's reading does, with its own error;
   ``JAXREWRITE_VERIFY_AST=1`` checks the skeleton's text against it at import.
5. The hot path reads no left-out body (that is where the time goes) on the benchmark's module.
"""

from __future__ import annotations

import ast
import marshal
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest
from corpus_support import at_least, corpus_files, read_source
from golden_cases import display_name, inputs

from jaxrewrite import RewriteError, RewriteWarning, rewrite_source
from jaxrewrite.errors import Notes
from jaxrewrite.engine.read import elided
from jaxrewrite.engine.read.source import Source
from jaxrewrite.hook import fast, pipeline
from jaxrewrite.hook.fast import skeleton

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
try:
    import bench_cold  # the benchmark's own modules, so the tests read what it measures
except AttributeError:  # Pyodide (the 3.14 leg): benchmarks/_timing.py needs time.thread_time
    if sys.platform != "emscripten":
        raise
    bench_cold = None

needs_bench = pytest.mark.skipif(bench_cold is None, reason="benchmarks/_timing.py needs time.thread_time (not on Pyodide)")


def read_back(text: str, least: int = 0) -> tuple[skeleton.Skeleton | None, ast.Module | None]:
    """The skeleton of ``text`` and its tree with every left-out body read back and each def's
    class restored (so that ``ast.dump`` compares it with ``ast.parse``'s tree)."""
    starts = Source(text, "mod.py").line_starts
    found = skeleton.build(text, starts, least=least)
    if found is None:
        return None, None
    tree = skeleton.parse(text, "mod.py", starts, found)
    assert tree is not None, "a skeleton that does not parse: the lexer misread the text"
    for node in ast.walk(tree):
        if isinstance(node, elided.ELIDED):
            node.body  # noqa: B018 - read back
            for name in ("first", "last", "_source", "_starts"):
                del node.__dict__[name]
            node.__class__ = ast.AsyncFunctionDef if isinstance(node, ast.AsyncFunctionDef) else ast.FunctionDef
    return found, tree


def same_code(text: str, filename: str) -> bool:
    """Is what the hook compiles for ``text`` byte for byte the code of ``rewrite_source``'s
    text? Both held by one name each, in one frame: marshal flags an object by its reference
    count (a temporary, or one held twice, dumps differently on 3.10 and 3.14)."""
    code = pipeline.compile_source(text.encode(), filename)
    expected = compile(rewrite_source(text, filename), filename, "exec", dont_inherit=True)
    return marshal.dumps(code) == marshal.dumps(expected)


def assert_exact(text: str) -> skeleton.Skeleton | None:
    found, tree = read_back(text)
    if tree is not None:
        assert ast.dump(tree, include_attributes=True) == ast.dump(ast.parse(text), include_attributes=True)
    return found


#: (name, module, how many bodies the skeleton leaves out). Every body but the one that holds a
#: def, class or ``@`` line: those the analysis walks, so they are parsed.
FORMS = [
    ("string at column 0, then code", 'def f():\n    s = """\nabc\n""".join(x)\n    return s\nz = 1\n', 1),
    ("brackets across a dedent", "def f():\n    x = g(\n1,\n)\n    return x\ny = 2\n", 1),
    ("backslash to column 0", "def f():\n    x = 1 + \\\n2\n    return x\n", 1),
    ("comments at column 0 and after", "def f():\n    x = 1\n# a comment\n    return x\n# after\ny = 1\n", 1),
    ("docstring only", 'def f():\n    """Only a docstring."""\n\n\nx = 1\n', 1),
    ("one-line def kept", "def f(): return 1\ndef g():\n    return 2\n", 1),
    ("multi-line header", "def f(\n    a: int,\n    b: 'x:y' = {1: 2},\n) -> int:\n    return a\n", 1),
    ("lambda default with a colon", "def f(k=lambda: 1):  # it's\n    return k()\n", 1),
    ("backslash in the header", "def f(a, \\\n      b):\n    return a\n", 1),
    ("async", "async def f(xs):\n    async for x in xs:\n        await x\n    async with y:\n        pass\n", 1),
    (
        "methods, the last one ends the class",
        "class C:\n    def a(self):\n        return 1\n\n    def b(self):\n        x = 1\n        return x  # end\n\n\ny = 2\n",
        2,
    ),
    (
        "the last statement of if, try, with, for, match",
        (
            "if X:\n    def a():\n        return 1\nelse:\n    def b():\n        return 2\n"
            "try:\n    pass\nexcept E:\n    def c():\n        return 3\nfinally:\n    def d():\n        return 4\n"
            "with w:\n    def e():\n        return 5\nfor i in r:\n    def g():\n        return 6\n"
            "match v:\n    case 1:\n        def h():\n            return 7\n"
        ),
        7,
    ),
    ("a semicolon ends the body", "def f():\n    x = 1; y = 2;\n\nz = 3\n", 1),
    ("unicode in the last line", "def f():\n    é = 'ü'\n    return é  # ß\n", 1),
    ("ends in a multi-line string", 'def f():\n    return """a\nb"""\n', 1),
    ("no line break at the end", "def f():\n    return 1", 1),
    ("nested def: only the inner body", "def f():\n    def g():\n        return 1\n    return g\n", 1),
    ("'@' in a string: walked, so parsed", "def f():\n    return 'a@b'\n", 0),
    ("nonlocal", "def f():\n    n = 0\n    def g():\n        nonlocal n\n        n += 1\n    return g\n", 1),
    (
        "f-strings",
        'def f(x, w):\n    a = f"{x}"\n    b = f"{{lit}}"\n    c = f"{x:{w}}"\n    d = f"{x[\'k\']}"\n    return a + f\'\'\'{b}\n{c}\'\'\'\n',
        1,
    ),
    ("bytes and raw strings", "def f():\n    return b'a' + rb'\\\\' + r'\\'' + '\\''\n", 1),
    ("continued single-quoted string", "def f():\n    s = 'a\\\nb'\n    return s\n", 1),
    ("semicolons and match in a body", "def f(v):\n    x = 1; y = 2\n    match v:\n        case 1:\n            return x\n    return y\n", 1),
    ("blank lines with blanks", "def f():\n    x = 1\n  \n\n    return x\n", 1),
    ("decorated", "@dec\n@other(1)\ndef f():\n    return 1\n", 1),
    ("'def ' in a string", 'def f():\n    s = """\ndef fake(n: Static[int]):\n    pass\n"""\n    return s\n', 0),
    ("comment-only last line deeper", "def f():\n    return 1\n        # deeper\nx = 1\n", 1),
    ("class body ends with a kept def", "class C:\n    def a(self): return 1\n", 0),
]


@pytest.mark.parametrize("text,bodies", [(text, bodies) for _, text, bodies in FORMS], ids=[name for name, _, _ in FORMS])
def test_each_form_reads_back_as_the_parser_reads_it(text: str, bodies: int) -> None:
    found = assert_exact(text)
    assert (len(found.bodies) if found else 0) == bodies


UNSURE = [
    ("tab indentation", "def f():\n\treturn 1\n"),
    ("form feed", "def f():\n    x = 1\n\f\n    return x\n"),
    ("\\r\\n line breaks", "def f():\r\n    return 1\r\n"),
    ("unterminated string", "def f():\n    return 'abc\n"),
    ("a field left open (PEP 701 quotes)", 'def f(d):\n    return f"{d["k"]}"\n'),
    ("\\x01 in the text", "def f():\n    return '\x01'\n"),
]


@pytest.mark.parametrize("text", [text for _, text in UNSURE], ids=[name for name, _ in UNSURE])
def test_where_the_lexer_cannot_be_sure_there_is_no_skeleton(text: str) -> None:
    assert read_back(text) == (None, None)


@pytest.mark.skipif(sys.version_info < (3, 14), reason="t-strings (PEP 750) parse from Python 3.14")
def test_a_t_string_with_quotes_in_a_field_leaves_no_skeleton() -> None:
    text = 'def f(d):\n    return t"{d["k"]}"\n'
    ast.parse(text)
    assert read_back(text) == (None, None)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 701 f-strings parse from Python 3.12")
def test_pep_701_module_still_rewrites_by_the_whole_reading() -> None:
    text = MODULE_HEAD + 'def helper(d):\n    return f"{d["k"]}" + f"{f"{d}"}"\n' + LONG_BODY
    assert fast.skeleton_rewrite(text, "mod.py", least=0) is None
    assert same_code(text, "mod.py")


def test_every_corpus_file_reads_back_as_the_parser_reads_it() -> None:
    pytest.importorskip("jax", reason="the corpus is the installed jax, jaxlib and numpy")
    built = bodies = 0
    for _, path in corpus_files(sampled=True):
        text = read_source(path)
        if text is None:
            continue
        found = assert_exact(text)
        if found is not None:
            built += 1
            bodies += len(found.bodies)
    print(f"\n[skeleton] corpus: {built} skeletons, {bodies} bodies left out and read back")
    assert built >= at_least(700, 300) and bodies >= at_least(25000, 10000), (built, bodies)


# -- the rewrite -----------------------------------------------------------------------------------

MODULE_HEAD = """\
# jaxrewrite: enable
import functools

import jax
from jaxrewrite import Static

"""

#: A body long enough to leave out, and with nothing in it for the analysis.
LONG_BODY = """

def padding(x):
    total = 0
    for i in range(10):
        total = total + x * i - (i // 2) + (i % 3) * x - (x if i > 5 else -x)
    values = [total, total * 2, total * 3, total * 4, total * 5, total * 6, total * 7]
    return sum(values) / len(values) + min(values) - max(values)
"""


def test_every_golden_input_rewrites_the_same_from_its_skeleton() -> None:
    taken = said = 0
    for path in inputs():
        text = path.read_text(encoding="utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                expected = rewrite_source(text, display_name(path))
            except SyntaxError:
                expected = None
            got = fast.skeleton_rewrite(text, display_name(path), least=0)
            reported = fast.skeleton_rewrite(text, display_name(path), least=0, report=True)
            whole = None if expected is None else fast.rewrite_tree(text, display_name(path), report=True).notes
        if got is not None:
            taken += 1
            assert got[0] == expected, display_name(path)
        if reported is not None:
            # The markers that do nothing (the hook's warnings) read alike from the skeleton.
            assert reported == (expected, whole), display_name(path)
            said += len(reported[1])
    print(f"\n[skeleton] golden inputs read from a skeleton: {taken}, warnings at import: {said}")
    assert taken >= 40 and said >= 5


CALL_SITE_INSIDE = MODULE_HEAD + """
def f(x, n: Static[int]):
    return x * n


def main(x):
    # a body long enough to be left out of the skeleton, with a call site for the text search
    y = x + 1
    for i in range(3):
        y = y * 2 + i
    g = jax.jit(f)
    return g(y, 3)
""" + LONG_BODY

WRAPPER = MODULE_HEAD + """
def passthrough(fn):
    # returns the function itself: jax.jit(passthrough(f)) still applies to f
    print("registering", fn.__name__, "with a message long enough to be left out of the skeleton")
    return fn


def f(x, n: Static[int]):
    return x * n


g = jax.jit(passthrough(f))
""" + LONG_BODY

WRAPPER_BELOW = MODULE_HEAD + """
def wrap(fn):
    # a wrapper without functools.wraps below a transform: refused, whatever its body
    print("wrapping", fn.__name__, "with a message long enough to be left out of the skeleton")
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)
    return inner


def log(fn):
    # returns the function itself, so the transform above it applies to f
    print("registering", fn.__name__, "with a message long enough to be left out of the skeleton")
    return fn


@jax.jit
@log
def f(x, n: Static[int]):
    return x * n
""" + LONG_BODY


@pytest.mark.parametrize(
    "text,read",
    [(CALL_SITE_INSIDE, {"main"}), (WRAPPER, {"passthrough"}), (WRAPPER_BELOW, {"log"})],
    ids=["call site in a left-out body", "wrapper returning its argument", "wrapper below the transform"],
)
def test_a_left_out_body_the_analysis_needs_is_read_back(
    text: str, read: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    names = spy_reads(monkeypatch)
    expected = rewrite_source(text, "mod.py")
    got = fast.skeleton_rewrite(text, "mod.py", least=0)
    assert got == (expected, ()) and "static_argnums=(1,)" in got[0]
    assert set(names) == read


def spy_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the defs whose left-out bodies are read back, as they are."""
    names: list[str] = []
    real = elided._body_of

    def counted(node: ast.AST) -> list[ast.stmt]:
        if "body" not in node.__dict__:
            names.append(node.name)  # type: ignore[attr-defined]
        return real(node)

    for kind in elided.ELIDED:
        monkeypatch.setattr(kind, "body", property(counted, elided._set_body))
    return names


# -- the hook --------------------------------------------------------------------------------------

BROKEN_BODY = MODULE_HEAD + """
@jax.jit
def f(x, n: Static[int]):
    return x * n


def broken(x):
    # a body long enough to be left out of the skeleton, with a syntax error in it
    values = [x, x * 2, x * 3, x * 4, x * 5, x * 6, x * 7, x * 8, x * 9, x * 10]
    y = = 1
    return values
""" + LONG_BODY


#: The same error in a body the analysis reads back (a call site's text search lands in it).
BROKEN_READ = BROKEN_BODY.replace("    y = = 1\n", "    g = jax.jit(f)\n    y = = 1\n")


@pytest.mark.parametrize("text,left_out", [(BROKEN_BODY, True), (BROKEN_READ, False)], ids=["left out", "read back"])
def test_a_syntax_error_in_a_left_out_body_is_pythons_own(text: str, left_out: bool) -> None:
    # left out: the skeleton's text compiles no further; read back: the reading stops there
    assert (fast.skeleton_rewrite(text, "mod.py", least=0) is not None) is left_out
    with pytest.raises(SyntaxError) as plain:
        compile(text, "mod.py", "exec")
    with pytest.raises(SyntaxError) as hooked:
        pipeline.compile_source(text.encode(), "mod.py")
    assert type(hooked.value) is SyntaxError
    got, want = hooked.value, plain.value
    assert (got.msg, got.lineno, got.offset, got.filename) == (want.msg, want.lineno, want.offset, want.filename)


MISUSE = MODULE_HEAD + """
@functools.partial(jax.jit, donate_argnums=(0, 1))
def f(x, n: Static[int]):
    return x * n
""" + LONG_BODY * 3


def test_a_rewrite_error_is_the_whole_readings() -> None:
    with pytest.raises(RewriteError) as whole:
        rewrite_source(MISUSE, "mod.py")
    with pytest.raises(RewriteError) as hooked:
        pipeline.compile_source(MISUSE.encode(), "mod.py")
    assert str(hooked.value) == str(whole.value)


WARNS = "# jaxrewrite: enable\n# jaxrewrite: turbo\n" + MODULE_HEAD.split("\n", 1)[1] + """
@jax.jit
def f(x, n: Static[int]):
    return x * n
""" + LONG_BODY * 3


def test_a_warning_is_issued_once_by_the_skeletons_reading_and_returned_for_the_cache() -> None:
    said = "JR005 unknown jaxrewrite directive '# jaxrewrite: turbo' (only 'enable' exists)"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = fast.skeleton_rewrite(WARNS, "mod.py", least=0)
        assert got is not None and got[1] == ((said, 2),)
        assert got[0] == rewrite_source(WARNS, "mod.py")
    assert [str(w.message) for w in caught if w.category is RewriteWarning] == [said] * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert same_code(WARNS, "mod.py")
    assert [str(w.message) for w in caught if w.category is RewriteWarning] == [said] * 2  # the hook, then rewrite_source


@needs_bench
def test_the_hook_takes_the_skeleton_where_it_pays_and_compiles_the_same_code(monkeypatch: pytest.MonkeyPatch) -> None:
    text = bench_cold.realistic_module(20)
    taken: list[bool] = []
    real = fast.skeleton_rewrite

    def spy(*args: object, **kwargs: object) -> tuple[str, Notes] | None:
        out = real(*args, **kwargs)  # type: ignore[arg-type]
        taken.append(out is not None)
        return out

    monkeypatch.setattr(fast, "skeleton_rewrite", spy)
    assert same_code(text, "bench.py")
    assert taken == [True]
    # the dense module (one-line bodies) leaves too little out: the whole reading
    assert fast.skeleton_rewrite(bench_cold.dense_module(20), "dense.py") is None


@needs_bench
def test_the_hook_checks_the_skeletons_text(monkeypatch: pytest.MonkeyPatch) -> None:
    text = bench_cold.realistic_module(20)
    real = fast.skeleton_rewrite
    monkeypatch.setattr(
        fast, "skeleton_rewrite", lambda *a, **k: (real(*a, **k)[0].replace("EPS = 1e-6", "EPS = 2e-6"), ())  # type: ignore[index]
    )
    pipeline.compile_source(text.encode(), "bench.py")  # unchecked: the wrong text compiles
    monkeypatch.setenv("JAXREWRITE_VERIFY_AST", "1")
    with pytest.raises(AssertionError, match="bench.py: the text rewritten from the module's skeleton differs"):
        pipeline.compile_source(text.encode(), "bench.py")


@needs_bench
def test_the_hot_path_reads_no_left_out_body(monkeypatch: pytest.MonkeyPatch) -> None:
    text = bench_cold.realistic_module(40)
    starts = Source(text, "bench.py").line_starts
    found = skeleton.build(text, starts)
    assert found is not None and found.elided > 0.5 * len(text)
    read = spy_reads(monkeypatch)
    assert fast.skeleton_rewrite(text, "bench.py") == (rewrite_source(text, "bench.py"), ())
    assert read == []


def test_dedented_source_helper_is_exact() -> None:
    # the body read back sits at its own lines and columns, whatever the def's depth
    text = textwrap.dedent(
        """\
        class A:
            class B:
                def f(self):
                    x = [
                        1,
                    ]
                    return x
        """
    )
    assert len(assert_exact(text).bodies) == 1  # type: ignore[union-attr]


#: Texts that make a backtracking lexer try every split of a string left open, or rescan a body
#: for every line in brackets: (name, text of about ``n`` repeats).
HOSTILE = [
    ("triple-quoted string left open", lambda n: 'def f():\n    y = """' + "ab" * n),
    ("single-quoted string with escapes, left open", lambda n: "def f():\n    y = '" + "ab\\x" * n),
    ("lone quotes after an open triple", lambda n: "y = '''" + "a'" * n),
    ("a body's lines in brackets at column 0", lambda n: "def f():\n    return [\n" + "1,\n" * n + "]\n"),
]


def _best(text: str) -> float:
    starts = Source(text, "mod.py").line_starts
    times = []
    for _ in range(5):
        start = time.perf_counter()
        skeleton.build(text, starts, least=0)
        times.append(time.perf_counter() - start)
    return min(times)


@pytest.mark.parametrize("make", [make for _, make in HOSTILE], ids=[name for name, _ in HOSTILE])
def test_a_hostile_text_costs_what_its_size_does(make: object) -> None:
    build = make  # type: ignore[assignment]
    # 12 repeats: a lexer with nested quantifiers takes seconds (2**n splits); this one, what a
    # plain text of that size takes
    small = build(12)  # type: ignore[operator]
    plain = "def f():\n    return 1\n" + "x = 1\n" * (len(small) // 6)
    assert _best(small) / _best(plain) < 20
    # and it scales with the text: four times the text, at most about four times the time
    ratio = _best(build(16000)) / _best(build(4000))  # type: ignore[operator]
    assert ratio < 8, ratio
