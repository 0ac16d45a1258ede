"""The real-code corpus: jaxrewrite over every .py file of the installed jax, jaxlib and numpy.

1. Every file, with ``# jaxrewrite: enable`` prepended, comes back byte-identical: none of
   them imports jaxrewrite, so nothing in them can be Static. Nothing may raise except
   Python's own SyntaxError for a file that does not compile on this Python (counted).
2. Every module with a hand-written static spec, decorators (``@partial(jit, static_argnums=...)``,
   ``@api.jit(static_argnames=...)``, ``@partial(custom_vjp, nondiff_argnums=...)``, ...) and call
   sites on the module's own defs (``api.jit(f, static_argnums=...)``), goes through
   ``jaxrewrite.migrate.migrate_source``, is rewritten, and every use of every migrated function
   (as the engine's analysis of the original lists them) is read back by ``corpus_support``'s own
   reading of JAX's rules, not migrate's round trip: the same static positions and names as JAX
   read from the original spec, every other argument as the user wrote it, no line moved by the
   rewrite and no other line touched. The same functions again with the uses kept as written and
   only one parameter annotated: the engine must complete the user's lists. What migrate
   refuses is counted by reason (its code: JR2nn, or the error code of the same check).

The README's test command reads a stable half of the corpus (``corpus_support.in_sample``, by
a hash of each path below its package: the same files everywhere, about 25 s of CPU); ``.ci/run``
reads every file (``JAXREWRITE_FULL=1``; ``-s`` prints the counts and seconds). The lower
bounds, divided by the share sampled, keep the test from quietly checking nothing when JAX
changes its style.
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
    Module,
    at_least,
    check_rewrite,
    convert_corpus,
    corpus_files,
    migrate_module,
    read_source,
)

from jaxrewrite import RewriteError, RewriteWarning, rewrite_source
from jaxrewrite.hook.pycfile import compile_source
from jaxrewrite.migrate import Reason

FILES = corpus_files(sampled=True)

#: Lower bounds, far below what jax 0.10.2 has (617 jax / 75 jaxlib / 487 numpy files, 277
#: uses of 272 functions migrated in 55 files: 274 decorators, 3 call sites), far above what a
#: broken finder would report.
MIN_FILES = {"jax": at_least(300, 200), "numpy": at_least(300, 150)}
MIN_VERIFIED = at_least(200, 60)
MIN_CONVERTED_FILES = at_least(30, 15)


#: The corpus texts that rewrite, each checked by ``_one_route``: the hook compiles the code of
#: the printed text (issue 51 item 3).
ROUTES: Counter[str | None] = Counter()


def _one_route(text: str, rewritten: str, filename: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = compile_source(text.encode("utf-8"), filename)
    assert code == compile(rewritten, filename, "exec", dont_inherit=True), filename
    return "text"


def _rewrite(text: str, filename: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RewriteWarning)
        rewritten = rewrite_source(text, filename)
    if rewritten != text:
        ROUTES[_one_route(text, rewritten, filename)] += 1
    return rewritten


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
    assert len(files) >= MIN_FILES.get(package, 1), (
        f"only {len(files)} .py files found for {package}"
    )
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
                problems.append(
                    f"{path}: SyntaxError from the engine, but the file compiles: {error}"
                )
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
    assert counts["byte-identical"] + counts[
        "syntax-skipped (does not compile on this Python)"
    ] + counts["mentions jaxrewrite (not required identical)"] == len(files)


# -- 2. hand-written statics, migrated -------------------------------------------------------


@pytest.fixture(scope="module")
def corpus_run() -> CorpusRun:
    started = time.perf_counter()
    run = convert_corpus(FILES, _rewrite)
    _show(
        "hand-written static specs migrated into Static annotations",
        {
            "files with a hand-written static spec": run.files_with_specs,
            "files migrated": run.files_converted,
            "functions migrated": run.functions,
            "functions verified": run.functions_verified,
            "uses migrated": run.uses,
            "uses verified": run.verified,
            "uses verified again, kept as written with one parameter Static": run.merge_verified,
            "problems": len(run.problems),
            "seconds": round(time.perf_counter() - started, 1),
        },
    )
    _show("migrated, by transform", run.by_transform)
    _show("migrated, by kind of use", run.by_kind)
    _show("rewritten as", run.forms)
    _show("functions refused, by reason", run.skipped)
    return run


def test_corpus_static_specs_survive_conversion(corpus_run: CorpusRun) -> None:
    assert not corpus_run.problems, "\n".join(corpus_run.problems[:20])
    assert corpus_run.verified == corpus_run.merge_verified == corpus_run.uses
    assert corpus_run.functions_verified == corpus_run.functions
    assert corpus_run.verified >= MIN_VERIFIED, corpus_run.verified
    assert corpus_run.files_converted >= MIN_CONVERTED_FILES, corpus_run.files_converted
    # Refusals are the exception; a finder that lost its way would refuse everything.
    assert sum(corpus_run.skipped.values()) < corpus_run.uses / 4, corpus_run.skipped
    # The corpus reaches both engine spellings and both transform families.
    assert corpus_run.forms["partial wrapper"] >= at_least(50, 30), corpus_run.forms
    assert corpus_run.forms["completed in place"] >= at_least(10, 3), corpus_run.forms
    assert corpus_run.by_transform["jit"] >= MIN_VERIFIED, corpus_run.by_transform
    assert corpus_run.by_transform["custom_vjp"] + corpus_run.by_transform["custom_jvp"] >= 1, (
        corpus_run.by_transform
    )


def test_the_hook_compiles_each_corpus_text_to_the_code_of_its_printed_text(
    corpus_run: CorpusRun,
) -> None:
    """Every text the corpus run rewrote went through ``_one_route``: the hook's code is the
    code of the printed text (compared as code objects: recursively, by meaning)."""
    _show("rewritten corpus texts by the hook's route", dict(ROUTES))
    assert sum(ROUTES.values()) >= corpus_run.files_converted, ROUTES


# -- the migration and the verifier, on small inputs ---------------------------------------------


def _check(module: Module, text: str | None = None, rewrite=_rewrite) -> list[str]:  # type: ignore[no-untyped-def]
    """The verifier's problems with the module's migrated text (or ``text``, lines as migrated)."""
    text = module.migration.text if text is None else text
    return check_rewrite(module, text, module.lines, rewrite, "case.py").problems


def _convert(source: str) -> tuple[Module, str]:
    module = migrate_module(source, "case.py")
    assert module.migration.changed
    assert not _check(module)
    return module, _rewrite(module.migration.text, "case.py")


LAYOUTS = '''"""Doc."""
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
'''  # noqa: E501


def test_converter_layouts() -> None:
    module, out = _convert(LAYOUTS)
    converted = module.migration.text
    # migrate's header: the pragma before the first statement, the import where isort puts it; the
    # whole-line spec item of b goes with its line, its comment stays; the ``partial`` import that
    # migrate made unused goes too (a codemod leaves the file as clean as it found it).
    assert converted.count("\n") == LAYOUTS.count("\n") + 1 - 1
    lines = converted.splitlines()
    assert (
        lines[2] == "# jaxrewrite: enable" and lines[7] == "from jaxrewrite import NoDiff, Static"
    )
    assert (
        "from functools import partial" in LAYOUTS
        and "from functools import partial" not in converted
    )
    assert "@jax.jit\ndef a(x, n: Static):" in converted
    assert (
        "@api.jit(\n    # comment\n    donate_argnums=0)\n"
        'def b(x, m: Static[int], n: Static["int"], *, k=1):'
    ) in converted
    assert "@my_jit\ndef d(x, *, k: Static):" in converted
    assert (
        "__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))"
        in out
    )
    assert "donate_argnums=0, static_argnums=(1, 2), static_argnames=('m', 'n'))" in out
    assert (
        "__import__('functools').partial(my_jit, static_argnums=(), static_argnames=('k',))" in out
    )
    # A negative position is refused (the old converter resolved it against the def: JAX counts it
    # from the end of each call's arguments), and c stays as written.
    assert [(r.function, r.reason) for r in module.migration.refused] == [("c", Reason.NEGATIVE)]
    assert (
        "@functools.partial(my_jit, donate_argnums=0, static_argnums=-1, inline=True)\n"
        "def c(x, y, z):"
    ) in converted
    # Call sites: the keywords go, the engine writes them back; custom_vjp's names become NoDiff.
    assert "def e(x, n: Static):" in converted and "def f(x, mode: NoDiff):" in converted
    assert (
        "e_jit, f_vjp = api.jit(e, inline=True), jax.custom_vjp(f)\ntraced = jax.jit(e).trace(1, 2)"
        in converted
    )
    assert "api.jit(e, inline=True, static_argnums=(1,), static_argnames=('n',))" in out
    assert "jax.custom_vjp(f, nondiff_argnums=(1,))" in out
    assert "jax.jit(e, static_argnums=(1,), static_argnames=('n',)).trace(1, 2)" in out


def test_verifier_is_its_own() -> None:
    """The verifier reads JAX's rules itself: a migrated text or a rewrite that changes what is
    static is caught without migrate's round trip."""
    module, _ = _convert(LAYOUTS)
    text = module.migration.text
    dropped = _check(module, text.replace("def a(x, n: Static):", "def a(x, n):        "))
    assert (
        len(dropped) == 1
        and "case.py:9 a (decorator jit): JAX reads static positions [], names []" in dropped[0]
    )
    # Without static_argnames JAX infers it (the same statics); an empty one is one way only.
    same = _check(
        module,
        rewrite=lambda t, f: _rewrite(t, f).replace(", static_argnames=('n',))\ndef a", ")\ndef a"),
    )
    assert not same
    one_way = _check(
        module,
        rewrite=lambda t, f: _rewrite(t, f).replace(
            "static_argnames=('n',))\ndef a", "static_argnames=())\ndef a"
        ),
    )
    assert len(one_way) == 1 and "reads static positions [1], names [] in" in one_way[0]
    assert one_way[0].endswith("the original spec gave positions [1], names ['n']")
    moved = _check(
        module,
        rewrite=lambda t, f: _rewrite(t, f).replace(
            "def e(x, n: Static):", "def e(\nx, n: Static):"
        ),
    )
    assert "case.py: the rewrite moved lines" in moved
    kept = _check(
        module, rewrite=lambda t, f: _rewrite(t, f).replace("inline=True", "inline=False")
    )
    assert "other arguments changed" in kept[0] and kept[1:] == [
        "case.py: lines [20] changed outside the uses"
    ]  # c's


def test_converter_skips_what_it_cannot_spell() -> None:
    source = """from functools import partial
import jax
from elsewhere import imported
N = [1]  # a list: it may change before jit reads it
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

def jit_by_position(x, n):
    return x

jitted = jax.jit(jit_by_position, None, None, (1,))  # in_shardings, out_shardings, static_argnums

def wrapped(x, n):
    return x

jitted = jax.jit(wrap(wrapped), static_argnums=(1,))
other = jax.jit(imported, static_argnums=(1,))

@partial(jax.jit, static_argnums=(1,))
def kept(x, n):
    return x
"""
    module = migrate_module(source, "case.py")
    result = module.migration
    reasons = {r.function: (r.reason, r.reason.rule.code) for r in result.refused}
    assert reasons == {
        "non_literal": (Reason.NON_LITERAL, "JR111"),
        "star": (Reason.VARARGS, "JR204"),
        "donated": (Reason.DONATED, "JR112"),
        "positional_only_static": (Reason.ONE_WAY, "JR206"),
        "stacked": (Reason.DISAGREE, "JR207"),
        "called": (Reason.DISAGREE, "JR207"),
        "aliased": (Reason.ALIAS, "JR209"),
        "jit_by_position": (Reason.POSITIONAL, "JR213"),
        "wrapped": (Reason.HIDDEN_SIGNATURE, "JR211"),
        None: (Reason.NOT_LOCAL, "JR208"),
    }
    # custom_vjp's nondiff_argnums may be passed by position, and migrate takes it (the old
    # converter skipped it).
    assert sorted(m.function for m in result.migrated) == ["by_position", "kept"]
    # ``Static`` is taken here; an ``as`` import goes on a line of its own, as isort writes it
    assert (
        "from jaxrewrite import NoDiff\nfrom jaxrewrite import Static as JrStatic\n" in result.text
    )
    assert (
        "def kept(x, n: JrStatic):" in result.text
        and "def by_position(x, n: NoDiff):" in result.text
    )
    assert not _check(module)


# -- engine bugs the corpus exposed ------------------------------------------------------------


def test_corpus_module_with_a_form_feed() -> None:
    """The first migrated jax module, with a form feed (PEP 8's page break) on a blank line.

    Python reads ``\\f`` as whitespace, so the module means exactly the same; the rewrite
    must too. It once failed: lines were split with str.splitlines, which also breaks at form
    feeds, so every decorator after one was spliced at a shifted offset.
    """
    module = path = None
    for pkg, path in FILES:
        source = read_source(path)
        if pkg == "jax" and "static_arg" in source:
            module = migrate_module(source, str(path))
            if module.migration.migrated:
                break
    else:  # pytest.fail is not an AssertionError: it would not pass for the known bug
        pytest.fail("no migrated jax module")
    lines = module.migration.text.split("\n")
    first = min(module.lines[id(use.node)] for use in module.found)
    blanks = [n for n in range(first - 2, 0, -1) if not lines[n].strip()]
    if not blanks:
        pytest.fail(f"no blank line before line {first} of {path}")
    lines[blanks[0]] = "\f"
    text = "\n".join(lines)
    ast.parse(text)  # the same module to Python
    checked = check_rewrite(module, text, module.lines, _rewrite, str(path))
    written = [use for use in module.found if use.written]
    assert not checked.problems and written and checked.good == written, checked.problems[:3]
