"""The real-code corpus: jaxrewrite over every .py file of the installed jax, jaxlib and numpy.

1. Every file, with ``# jaxrewrite: enable`` prepended, comes back byte-identical: none of
   them imports jaxrewrite, so nothing in them can be Static. Nothing may raise except
   Python's own SyntaxError for a file that does not compile on this Python (counted).
2. Every transform use in them that spells static arguments by hand, decorators
   (``@partial(jit, static_argnums=...)``, ``@api.jit(static_argnames=...)``,
   ``@partial(custom_vjp, nondiff_argnums=...)``, ...) and call sites on the module's own defs
   (``api.jit(f, static_argnums=...)``), as the engine's analysis lists them, is converted
   into ``Static`` annotations where that is faithful (``corpus_support``), the module
   rewritten, and each rewritten use read back: the same static parameters as JAX read from
   the original spec, each positional-or-keyword one in both lists, every other argument as
   the user wrote it, no line moved and no other line touched. The same functions again with
   the uses kept as written and only one parameter annotated: the engine must complete the
   user's lists. What is not converted is counted by reason.

The whole corpus is covered, no sampling: about 30 s of CPU in all (``-s`` prints the counts
and seconds). The lower bounds keep the test from quietly checking nothing when JAX changes
its style.
"""

from __future__ import annotations

import ast
import time
import warnings
from collections import Counter
from collections.abc import Mapping

import pytest
from corpus_support import (
    CORPUS_PACKAGES,
    PRAGMA,
    CorpusRun,
    check_rewrite,
    convert_corpus,
    convert_module,
    corpus_files,
    read_module,
    read_source,
    verify_module,
)

from jaxrewrite import RewriteError, RewriteWarning, rewrite_source

FILES = corpus_files()

#: Lower bounds, far below what jax 0.10.2 has (617 jax / 75 jaxlib / 487 numpy files, 277
#: uses converted in 55 files: 274 decorators, 3 call sites), far above what a broken finder
#: would report.
MIN_FILES = {"jax": 300, "numpy": 300}
MIN_VERIFIED = 200
MIN_CONVERTED_FILES = 30


def _rewrite(text: str, filename: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RewriteWarning)
        return rewrite_source(text, filename)


def _show(title: str, counts: Mapping[str, object]) -> None:
    print(f"\n[corpus] {title}")
    items = counts.most_common() if isinstance(counts, Counter) else counts.items()
    for key, value in items:
        print(f"[corpus]   {key}: {value}")


# -- 1. byte-identical -------------------------------------------------------------------------


@pytest.mark.parametrize("package", CORPUS_PACKAGES)
def test_corpus_comes_back_byte_identical(package: str) -> None:
    files = [path for pkg, path in FILES if pkg == package]
    if package not in MIN_FILES and not files:
        pytest.skip(f"{package} is not installed")
    assert len(files) >= MIN_FILES.get(package, 1), f"only {len(files)} .py files found for {package}"
    counts: Counter[str] = Counter()
    problems: list[str] = []
    started = time.perf_counter()
    for path in files:
        source = read_source(path)
        text = PRAGMA + source
        counts["files scanned"] += 1
        if "jaxrewrite" in source:  # could spell a marker: not expected to stay as it is
            counts["mentions jaxrewrite (not required identical)"] += 1
        try:
            out = _rewrite(text, str(path))
        except RewriteError as error:
            problems.append(f"{path}: RewriteError: {error}")
            continue
        except SyntaxError as error:
            try:
                compile(text, str(path), "exec", dont_inherit=True)
            except SyntaxError:
                counts["syntax-skipped (does not compile on this Python)"] += 1
                print(f"[corpus]   syntax-skipped: {path}: {error}")
            else:
                problems.append(f"{path}: SyntaxError from the engine, but the file compiles: {error}")
            continue
        except RewriteWarning as warning:
            problems.append(f"{path}: RewriteWarning: {warning}")
            continue
        except Exception as error:  # noqa: BLE001 - any crash is a finding, reported with its file
            problems.append(f"{path}: {type(error).__name__}: {error}")
            continue
        if "jaxrewrite" in source:
            continue
        if out == text and out.encode("utf-8") == text.encode("utf-8"):
            counts["byte-identical"] += 1
        else:
            problems.append(f"{path}: changed although nothing in it is Static")
    counts_shown: dict[str, object] = dict(counts)
    counts_shown["seconds"] = round(time.perf_counter() - started, 1)
    _show(f"{package}: rewrite_source over every file with the pragma prepended", counts_shown)
    assert not problems, "\n".join(problems[:20])
    assert counts["byte-identical"] + counts["syntax-skipped (does not compile on this Python)"] + counts[
        "mentions jaxrewrite (not required identical)"
    ] == len(files)


# -- 2. hand-written statics, converted -------------------------------------------------------


@pytest.fixture(scope="module")
def corpus_run() -> CorpusRun:
    started = time.perf_counter()
    run = convert_corpus(FILES, _rewrite)
    _show(
        "hand-written static specs converted into Static annotations",
        {
            "files with a hand-written static spec": run.files_with_specs,
            "files converted": run.files_converted,
            "functions converted": run.functions,
            "functions verified": run.functions_verified,
            "uses converted": run.uses,
            "uses verified": run.verified,
            "uses verified again, kept as written with one parameter Static": run.merge_verified,
            "problems": len(run.problems),
            "seconds": round(time.perf_counter() - started, 1),
        },
    )
    _show("converted, by transform", run.by_transform)
    _show("converted, by kind of use", run.by_kind)
    _show("rewritten as", run.forms)
    _show("converted, with", run.notes)
    _show("uses skipped, by reason", run.skipped)
    return run


def test_corpus_static_specs_survive_conversion(corpus_run: CorpusRun) -> None:
    assert not corpus_run.problems, "\n".join(corpus_run.problems[:20])
    assert corpus_run.verified == corpus_run.merge_verified == corpus_run.uses
    assert corpus_run.functions_verified == corpus_run.functions
    assert corpus_run.verified >= MIN_VERIFIED, corpus_run.verified
    assert corpus_run.files_converted >= MIN_CONVERTED_FILES, corpus_run.files_converted
    # Skips are the exception; a finder that lost its way would skip everything.
    assert sum(corpus_run.skipped.values()) < corpus_run.uses / 4, corpus_run.skipped
    # The corpus reaches both engine spellings and both transform families.
    assert corpus_run.forms["partial wrapper"] >= 50, corpus_run.forms
    assert corpus_run.forms["completed in place"] >= 10, corpus_run.forms
    assert corpus_run.by_transform["jit"] >= MIN_VERIFIED, corpus_run.by_transform
    assert corpus_run.by_transform["custom_vjp"] + corpus_run.by_transform["custom_jvp"] >= 1, corpus_run.by_transform


# -- the converter itself, on small inputs ------------------------------------------------------


def _convert(source: str) -> tuple[str, str]:
    module = read_module(source, "case.py")
    assert module is not None
    conv = convert_module(module)
    out = _rewrite(conv.text, "case.py")
    problems = [p for _, p in verify_module(conv, out) if p]
    assert not problems
    return conv.text, out


def test_converter_layouts() -> None:
    source = '''"""Doc."""
from __future__ import annotations
import functools
from functools import partial
import jax
from jax._src import api
from jax._src.api import jit as my_jit

@partial(jax.jit, static_argnums=(1,))
def a(x, n):
    return x

@api.jit(
    static_argnames=("m",  # comment
                     "n"),
    donate_argnums=0)
def b(x, m: int, n: "int", *, k=1):
    return x

@functools.partial(my_jit, donate_argnums=0, static_argnums=-1, inline=True)
def c(x, y, z):
    return x

@my_jit(static_argnames="k")
def d(x, *, k):
    return x

def e(x, n):
    return x

def f(x, mode):
    return x

e_jit, f_vjp = api.jit(e, static_argnums=(1,), inline=True), jax.custom_vjp(f, nondiff_argnames=("mode",))
traced = jax.jit(e, static_argnums=1).trace(1, 2)
'''
    converted, out = _convert(source)
    assert converted.count("\n") == source.count("\n") + 2
    assert converted.splitlines()[2:4] == ["# jaxrewrite: enable", "from jaxrewrite import Static"]
    assert "@jax.jit\ndef a(x, n: Static):" in converted
    assert "@api.jit(\n    \n\ndonate_argnums=0)\ndef b(x, m: Static[int], n: Static[\"int\"], *, k=1):" in converted
    assert "@functools.partial(my_jit, donate_argnums=0, inline=True)\ndef c(x, y, z: Static):" in converted
    assert "@my_jit\ndef d(x, *, k: Static):" in converted
    assert "__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))" in out
    assert "static_argnums=(2,), static_argnames=('z',)" in out
    assert "__import__('functools').partial(my_jit, static_argnums=(), static_argnames=('k',))" in out
    # Call sites: the keywords go, the engine writes them back.
    assert "def e(x, n: Static):" in converted and "def f(x, mode: Static):" in converted
    assert "e_jit, f_vjp = api.jit(e, inline=True), jax.custom_vjp(f)\ntraced = jax.jit(e).trace(1, 2)" in converted
    assert "api.jit(e, inline=True, static_argnums=(1,), static_argnames=('n',))" in out
    assert "jax.custom_vjp(f, nondiff_argnums=(1,))" in out
    assert "jax.jit(e, static_argnums=(1,), static_argnames=('n',)).trace(1, 2)" in out


def test_converter_skips_what_it_cannot_spell() -> None:
    source = '''from functools import partial
import jax
N = (1,)
Static = None

@partial(jax.jit, static_argnums=N)
def non_literal(x, n):
    return x

@partial(jax.jit, static_argnums=(1,))
def star(x, *sizes):
    return x

@partial(jax.jit, static_argnums=(1,), donate_argnums=(1,))
def donated(x, n):
    return x

@partial(jax.jit, static_argnums=(1,), static_argnames=())
def positional_only_static(x, n):
    return x

@partial(jax.jit, static_argnums=(1,))
@jax.vmap
def stacked(x, n):
    return x

@partial(jax.jit, static_argnums=(1,))
def called(x, n):
    return x

mapped = jax.vmap(called)

jit_n = partial(jax.jit, static_argnums=(1,))

@jit_n
def aliased(x, n):
    return x

def by_position(x, n):
    return x

vjp = jax.custom_vjp(by_position, (1,))

def wrapped(x, n):
    return x

jitted = jax.jit(wrap(wrapped), static_argnums=(1,))

@partial(jax.jit, static_argnums=(1,))
def kept(x, n):
    return x
'''
    module = read_module(source, "case.py")
    assert module is not None
    conv = convert_module(module)
    reasons = {f.func.name: f.skip for f in conv.skipped}
    assert reasons == {
        "non_literal": "non-literal static_argnums",
        "star": "static *args",
        "donated": "static and donated",
        "positional_only_static": "static only when passed by position",
        "stacked": "stacked with a transform that would get Static keywords too",
        "called": "also passed to a vmap call in the module (would be rewritten too)",
        "aliased": "static keywords bound where the transform is named",
        "by_position": "static spec passed by position",
        "wrapped": "function passed through a call (the spec is about what that returns)",
    }
    assert [f.func.name for f in conv.converted] == ["kept"]
    assert "from jaxrewrite import Static as _JrStatic" in conv.text  # ``Static`` is taken here
    assert "def kept(x, n: _JrStatic):" in conv.text


# -- engine bugs the corpus exposed ------------------------------------------------------------


def test_corpus_module_with_a_form_feed() -> None:
    """The first convertible jax module, with a form feed (PEP 8's page break) on a blank line.

    Python reads ``\\f`` as whitespace, so the module means exactly the same; the rewrite
    must too. It once failed: lines were split with str.splitlines, which also breaks at form
    feeds, so every decorator after one was spliced at a shifted offset.
    """
    conv = path = None
    for pkg, path in FILES:
        source = read_source(path)
        if pkg == "jax" and "static_arg" in source:
            module = read_module(source, str(path))
            conv = None if module is None else convert_module(module)
            if conv is not None and conv.converted:
                break
    else:  # pytest.fail is not an AssertionError: it would not pass for the known bug
        pytest.fail("no convertible jax module")
    lines = conv.text.split("\n")
    first = conv.new_line(min(f.call.lineno for f in conv.converted))
    blanks = [n for n in range(first - 2, 0, -1) if not lines[n].strip()]
    if not blanks:
        pytest.fail(f"no blank line before line {first} of {path}")
    lines[blanks[0]] = "\f"
    conv.text = "\n".join(lines)
    ast.parse(conv.text)  # the same module to Python
    problems: list[str] = []
    _, good = check_rewrite(conv, _rewrite, str(path), problems)
    assert not problems and len(good) == len(conv.converted), problems[:3]
