"""``jaxrewrite migrate``: hand-written static specs into annotations, proven by round trip.

The proof does not trust the migration's own reading of a spec. For every migrated function, each
of its transform uses is read twice with JAX's own ``infer_argnums_and_argnames`` on a real
``inspect.Signature`` built from the def: once in the module as Python ran it before (the original,
or what the hook made of it when it already opted in) and once in ``rewrite_source(migrated)``.
Both must give the same positions and names per transform keyword, every other keyword must be as
written, and the rewrite may touch no line but those uses. Then: migrating again changes nothing,
every migrated module compiles, and golden cases with a ``_check()`` run with the same results and
trace counts before and after.

Golden cases live in ``golden/migrate``: ``NAME.in`` (a module), ``NAME.out`` (the migrated module;
absent when nothing changes) and ``NAME.report`` (the migrate report). ``.in``/``.out`` rather than
``.py`` so that the rewrite's own golden runner (every ``golden/**/*.py``) does not take them for
its cases. ``pytest tests/migrate/test_migrate.py --update-golden`` regenerates them; read every
changed line before committing.
"""

from __future__ import annotations

import importlib.util
import io
import os
import stat
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest
from corpus_support import at_least, migrate_once
from corpus_support import corpus_files as corpus_sample
from golden_cases import ROOT, execute
from migrate_support import check_module, check_round_trip, report

from jaxrewrite import rewrite_source
from jaxrewrite.commands.migrate import migrate as migrate_command
from jaxrewrite.header import scan_header
from jaxrewrite.migrate import (
    REASONS,
    Migrated,
    Reason,
    may_need_migration,
    migrate_source,
)

MIGRATE_GOLDEN = ROOT / "golden" / "migrate"
CASES = sorted(MIGRATE_GOLDEN.glob("*.in"))


def case_id(path: Path) -> str:
    return path.stem


# -- golden cases ---------------------------------------------------------------------------------


def expected(path: Path) -> tuple[Path, Path]:
    return path.with_suffix(".out"), path.with_suffix(".report")


def display(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", CASES, ids=[case_id(p) for p in CASES])
def test_golden_migration(path: Path, update_golden: bool) -> None:
    source = path.read_text(encoding="utf-8")
    result = migrate_source(source, display(path))
    out_path, report_path = expected(path)
    said = "".join(line + "\n" for line in report(result))
    if update_golden:
        if result.changed:
            out_path.write_text(result.text, encoding="utf-8")
        else:
            out_path.unlink(missing_ok=True)
        report_path.write_text(said, encoding="utf-8")
        return
    assert report_path.exists(), (
        f"missing {report_path.name}; run pytest --update-golden and read it"
    )
    assert said == report_path.read_text(encoding="utf-8")
    if result.changed:
        assert out_path.exists(), f"missing {out_path.name}; run pytest --update-golden and read it"
        assert result.text == out_path.read_text(encoding="utf-8")
    else:
        assert not out_path.exists(), f"{out_path.name} is stale: nothing is migrated now"


@pytest.mark.parametrize("path", CASES, ids=[case_id(p) for p in CASES])
def test_golden_round_trip(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    result, problems = check_module(source, display(path))
    assert not problems, "\n".join(problems)


RUNNABLE = [p for p in CASES if "def _check(" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", RUNNABLE, ids=[case_id(p) for p in RUNNABLE])
def test_golden_runs_the_same(path: Path) -> None:
    """Same results and the same traces, before (plain Python, or the hook where the module already
    opted in) and after (the migrated module through the hook)."""
    source = path.read_text(encoding="utf-8")
    result = migrate_source(source, display(path))
    assert result.changed, "a runnable case must migrate something"
    name = "migrate_" + case_id(path)
    before_text = rewrite_source(source, display(path)) if scan_header(source).enabled else source
    before = execute(before_text, display(path), name + "_before")._check()
    after = execute(
        rewrite_source(result.text, display(path)), display(path), name + "_after"
    )._check()
    assert after == before


def test_golden_cases_cover_every_reason() -> None:
    """Every reason a function can be refused for is pinned by a golden report."""
    reasons = set()
    for path in CASES:
        report = expected(path)[1]
        if report.exists():
            reasons |= {r for r in Reason if f"[{r.value}]" in report.read_text(encoding="utf-8")}
    assert reasons == set(Reason), sorted(r.value for r in set(Reason) - reasons)
    assert set(REASONS) == set(Reason)


def test_no_orphan_expectations() -> None:
    stems = {p.with_suffix("") for p in CASES}
    for path in MIGRATE_GOLDEN.iterdir():
        assert path.suffix in (".in", ".out", ".report"), path
        assert path.with_suffix("") in stems, path


# -- small cases the golden files do not state --------------------------------------------------


def test_nothing_to_migrate_comes_back_identical() -> None:
    for text in ("import jax\n\n\n@jax.jit\ndef f(x):\n    return x\n", "x = 1\n", ""):
        result = migrate_source(text)
        assert result.text is text and not result.changed and not report(result)


def test_syntax_error_is_pythons_own() -> None:
    with pytest.raises(SyntaxError):
        migrate_source("def f(:\n", "bad.py")
    with pytest.raises(SyntaxError):  # also where the pre-filter finds nothing to do
        migrate_source("static_argnums = (\n", "bad.py")


def test_line_endings_and_form_feeds_are_kept() -> None:
    source = (
        "from functools import partial\r\nimport jax\r\n\x0c\r\n"
        "@partial(jax.jit, static_argnums=1)\r\ndef f(x, n):\r\n    return x * n\r\n"
    )
    result = migrate_source(source, "crlf.py")
    assert result.changed
    # + the pragma and the marker import, - the partial import the migration made unused
    assert result.text.count("\r\n") == result.text.count("\n") == source.count("\n") + 1
    assert "functools" not in result.text
    assert "\x0c" in result.text and "def f(x, n: Static):" in result.text
    assert not check_round_trip(source, result, "crlf.py")


def test_import_goes_after_the_imports_and_the_pragma_before_them() -> None:
    source = textwrap.dedent(
        '''\
        """Doc."""
        import jax
        import numpy as np
        X = 1
        import os


        @jax.jit(static_argnums=0)
        def f(n):
            return n
        '''
    )
    text = migrate_source(source).text
    assert text.splitlines()[:5] == [
        '"""Doc."""',
        "# jaxrewrite: enable",
        "import jax",
        "import numpy as np",
        "from jaxrewrite import Static",
    ]
    assert "@jax.jit\ndef f(n: Static):" in text


def test_module_without_imports_before_its_code() -> None:
    source = "def f(x, n):\n    return x\n\n\nimport jax\ng = jax.jit(f, static_argnums=1)\n"
    text = migrate_source(source).text
    assert text.startswith(
        "# jaxrewrite: enable\nfrom jaxrewrite import Static\ndef f(x, n: Static):"
    )


def test_existing_import_is_reused() -> None:
    source = (
        "from functools import partial\nimport jax\nfrom jaxrewrite import Static as S\n\n"
        "@partial(jax.jit, static_argnums=1)\ndef f(x, n):\n    return x\n"
    )
    text = migrate_source(source).text
    assert "def f(x, n: S):" in text and text.count("import") == 2  # partial's went unused: gone
    assert (
        "from jaxrewrite import Static as S\n" in text
        and "from jaxrewrite import Static\n" not in text
    )


def test_multi_line_calls_keep_comments_and_close_cleanly() -> None:
    source = textwrap.dedent(
        """\
        import jax


        def f(x, n):
            return x


        g = jax.jit(
            f,
            static_argnums=(1,),  # n is a size
        )
        h = jax.jit(f,
                    static_argnums=1,
                    donate_argnums=0)
        k = jax.jit(f, static_argnums=[1],)
        """
    )
    result, problems = check_module(source, "layout.py")
    assert not problems
    assert "g = jax.jit(\n    f,\n    # n is a size\n)" in result.text
    assert "h = jax.jit(f,\n            donate_argnums=0)" in result.text
    assert "k = jax.jit(f,)" in result.text


def test_factory_and_partial_with_comments_keep_the_call() -> None:
    source = textwrap.dedent(
        """\
        from functools import partial
        import jax


        @partial(
            jax.jit,  # compiled once per n
            static_argnums=1,
        )
        def f(x, n):
            return x


        @jax.jit(
            # n picks the shape
            static_argnums=1)
        def g(x, n):
            return x
        """
    )
    result, problems = check_module(source, "comments.py")
    assert not problems
    assert "@partial(\n    jax.jit,  # compiled once per n\n)" in result.text
    assert "@jax.jit(  # n picks the shape\n)" in result.text


def test_prefilter_is_exact_for_what_migrates() -> None:
    assert not may_need_migration("import jax\n@jax.custom_vjp\ndef f(x): ...\n")
    assert may_need_migration("import jax\ng = jax.custom_vjp(f, (1,))\n")
    assert may_need_migration("jit(f, static_argnames='n')")


# -- the command ----------------------------------------------------------------------------------

SPEC_MODULE = """\
from functools import partial

import jax


@partial(jax.jit, static_argnums=(1,))
def f(x, n):
    return x * n
"""


def run_command(paths: list[str], write: bool = False) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = migrate_command(paths, write, out, err)
    return status, out.getvalue(), err.getvalue()


def test_command_prints_a_diff_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(SPEC_MODULE)
    status, out, err = run_command([str(path)])
    assert status == 1
    assert path.is_absolute()  # one slash after a/ and b/, as git writes them (not ``a//tmp/...``)
    assert out.startswith(f"--- a{path.as_posix()}\n+++ b{path.as_posix()}\n")
    assert "+@jax.jit\n" in out and "+def f(x, n: Static):\n" in out
    assert path.read_text() == SPEC_MODULE
    assert "1 function to migrate in 1 of 1 file; 0 refused" in err


def test_command_diff_counts_lines_as_python_does(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("# page one\x0c\n" + SPEC_MODULE)
    out = run_command([str(path)])[1]
    # 9 lines by Python's count (the form feed ends none), 10 after: + pragma + import - partial's
    # import
    assert (
        "@@ -1,9 +1,10 @@\n # page one\x0c\n-from functools import partial\n+# jaxrewrite: enable\n"
        in out
    )
    assert "No newline" not in out


def test_command_writes_atomically_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(SPEC_MODULE)
    path.chmod(0o640)
    status, out, err = run_command([str(tmp_path)], write=True)
    assert status == 1 and out == ""
    assert path.read_text() == migrate_source(SPEC_MODULE).text
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["m.py"]  # no temporary file left behind
    assert run_command([str(tmp_path)], write=True)[0] == 0  # nothing left to change


def test_command_writes_through_a_symbolic_link(tmp_path: Path) -> None:
    target = tmp_path / "real.py"
    target.write_text(SPEC_MODULE)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    assert run_command([str(link)], write=True)[0] == 1
    assert link.is_symlink() and target.read_text() == migrate_source(SPEC_MODULE).text


def test_command_keeps_encoding_bom_and_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    data = ("\ufeff" + SPEC_MODULE.replace("\n", "\r\n")).encode("utf-8")
    path.write_bytes(data)
    assert run_command([str(path)], write=True)[0] == 1
    written = path.read_bytes()
    assert written.startswith(b"\xef\xbb\xbf# jaxrewrite: enable\r\n")
    assert written.count(b"\r\n") == written.count(b"\n")
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + SPEC_MODULE.encode())
    assert run_command([str(latin)], write=True)[0] == 1
    assert latin.read_bytes().startswith(
        b"# -*- coding: latin-1 -*-\n# caf\xe9\n# jaxrewrite: enable\n"
    )


def test_command_skips_broken_files_and_reports_refusals(tmp_path: Path) -> None:
    (tmp_path / "a_broken.py").write_text("def f(:\n")
    (tmp_path / "b_good.py").write_text(SPEC_MODULE)
    (tmp_path / "c_refused.py").write_text(SPEC_MODULE.replace("(1,)", "(-1,)"))
    hidden = tmp_path / ".hidden"
    hidden.mkdir()
    (hidden / "skipped.py").write_text(SPEC_MODULE)
    status, _, err = run_command([str(tmp_path)], write=True)
    assert status == 2
    assert "a_broken.py:1:7: SyntaxError" in err and "skipped" in err
    assert "c_refused.py:7: refused f: static_argnums has -1" in err and "[negative]" in err
    assert (tmp_path / "b_good.py").read_text() == migrate_source(
        SPEC_MODULE
    ).text  # written all the same
    assert (hidden / "skipped.py").read_text() == SPEC_MODULE
    assert "1 function migrated in 1 of 3 files; 1 refused; 1 error" in err
    assert "[negative] " + REASONS[Reason.NEGATIVE] in err


def test_command_exit_status(tmp_path: Path) -> None:
    clean = tmp_path / "clean.py"
    clean.write_text("x = 1\n")
    assert run_command([str(clean)])[0] == 0
    assert run_command([str(tmp_path / "missing.py")])[0] == 2


def test_command_line(tmp_path: Path) -> None:
    """Through ``python -m jaxrewrite``: the command word, --write, --help."""
    path = tmp_path / "m.py"
    path.write_text(SPEC_MODULE)
    run = [sys.executable, "-m", "jaxrewrite", "migrate"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    shown = subprocess.run([*run, "m.py"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert shown.returncode == 1 and shown.stdout.startswith("--- a/m.py\n+++ b/m.py\n")
    written = subprocess.run(
        [*run, "--write", "m.py"], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    assert written.returncode == 1 and "m.py: migrated 1 function" in written.stderr
    helped = subprocess.run([*run, "--help"], capture_output=True, text=True, env=env)
    assert helped.returncode == 0 and "--write" in helped.stdout
    assert subprocess.run(run, capture_output=True, text=True, env=env).returncode == 2


END_TO_END = """\
from functools import partial

import jax
import jax.numpy as jnp

TRACES = []


@partial(jax.jit, static_argnums=(1,), static_argnames=("n",))
def tile(x, n):
    TRACES.append(("tile", n))
    return jnp.tile(x, n)


def cube(a, b, c, c_func):
    TRACES.append("cube")
    return (jnp.zeros((3, 3)) + a) * b ** c_func(c)


pcube = jax.pmap(cube, in_axes=(0, 0, None, None), static_broadcasted_argnums=(3,))

print(tile(jnp.ones(2), 2).tolist(), tile(jnp.zeros(2), n=2).tolist(), tile(jnp.ones(1), 3).tolist())
n = jax.local_device_count()
print(pcube(jnp.ones(n), jnp.arange(1.0, n + 1), 2.0, lambda c: c)[:, 0, 0].tolist())
print(TRACES)
"""  # noqa: E501


def test_migrated_program_prints_the_same(tmp_path: Path) -> None:
    """A program run plainly, migrated with --write, then run through the hook: same output,
    trace counts included (pmap on 4 CPU devices)."""
    path = tmp_path / "prog.py"
    path.write_text(END_TO_END)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "XLA_FLAGS": "--xla_force_host_platform_device_count=4",
    }
    before = subprocess.run(
        [sys.executable, "prog.py"], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    assert before.returncode == 0, before.stderr
    migrated = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", "migrate", "--write", "prog.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert migrated.returncode == 1, migrated.stderr
    assert "c_func: Static" in path.read_text()
    after = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", "prog.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout
    assert (
        "[('tile', 2), ('tile', 2), ('tile', 3), 'cube']" in after.stdout
    )  # by keyword: one more trace, both ways


# -- the corpus: jax's and numpy's installed sources ---------------------------------------------

CORPUS = ("jax", "numpy")


def corpus_files() -> list[Path]:
    """The .py files of jax and numpy in corpus_support's sample (all under JAXREWRITE_FULL=1)."""
    return [path for package, path in corpus_sample(sampled=True) if package in CORPUS]


#: Lower bounds, far below what jax 0.10.2 gives (272 functions migrated in 55 files, 19 refused),
#: far above what a broken finder would report (``at_least``: the second for the README's half).
MIN_FUNCTIONS = at_least(200, 60)
MIN_FILES = at_least(30, 15)


#: test_corpus.py's group (tests/conftest.py puts that file on one worker): this test migrates the
#: same files, so it runs beside it and reuses its migrations (corpus_support.migrate_once).
@pytest.mark.xdist_group("test_corpus.py")
def test_corpus_migrates_and_round_trips() -> None:
    """Every file of jax and numpy in the corpus's sample, migrated and each migrated module
    proven by round trip: the stable half test_corpus.py reads (about 10 s of CPU on one worker),
    every file under ``JAXREWRITE_FULL=1``, as .ci/run sets.
    """
    started = time.perf_counter()
    files = corpus_files()
    assert len(files) > at_least(600, 300), len(files)
    counts: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    by_transform: Counter[str] = Counter()
    problems: list[str] = []
    migrated: list[Migrated] = []
    for path in files:
        source = importlib.util.decode_source(path.read_bytes())
        counts["files"] += 1
        try:
            result, found = check_module(source, str(path), migrate_once)
        except SyntaxError:
            counts["files that do not compile on this Python"] += 1
            continue
        problems += found
        refused.update(r.reason.value for r in result.refused)
        if result.changed:
            counts["files migrated"] += 1
            migrated += result.migrated
            by_transform.update(
                use.transform for m in result.migrated for use in m.uses if use.written
            )
    counts["functions migrated"] = len(migrated)
    counts["specs removed"] = sum(use.written for m in migrated for use in m.uses)
    counts["functions refused"] = sum(refused.values())
    print(f"\n[migrate corpus] {dict(counts)} in {time.perf_counter() - started:.1f} s")
    print(f"[migrate corpus] specs removed, by transform: {dict(by_transform.most_common())}")
    print(f"[migrate corpus] refused, by reason: {dict(refused.most_common())}")
    assert not problems, "\n".join(problems[:20])
    assert len(migrated) >= MIN_FUNCTIONS and counts["files migrated"] >= MIN_FILES, counts
    assert sum(refused.values()) < len(migrated) / 4, refused
    assert (
        by_transform["jit"] >= MIN_FUNCTIONS
        and by_transform["custom_vjp"] + by_transform["custom_jvp"] >= 1
    )


def test_what_a_call_site_names_is_looked_up_in_its_own_scope() -> None:
    """A function-local rebinding of an imported name hides the import (the engine's scopes),
    and an import inside a function is seen there; a flat import map got both wrong."""
    text = (
        "import jax\nfrom math import hypot\n\n\n"
        "def run(make):\n    hypot = make()\n    return jax.jit(hypot, static_argnums=1)\n\n\n"
        "def other():\n    from math import fsum\n    return jax.jit(fsum, static_argnums=1)\n"
    )
    result = migrate_source(text, "m.py")
    assert report(result) == [
        "7: refused: jit is applied to 'hypot', which is not statically one def of this "
        "module; apply jit to the def "
        "itself [not-a-local-def]",
        "12: refused: jit is applied to 'fsum', which lives in another module "
        "(math.fsum); migrate the module that "
        "defines it [not-a-local-def]",
    ]
    assert not result.changed


def test_refusals_are_findings_with_codes() -> None:
    """Every reason has its own code in the one table of codes (JR2nn, or the JR1nn of the same
    check), with its summary."""
    from jaxrewrite.engine.findings.checks.registry import CODES

    assert len({reason.rule.code for reason in Reason}) == len(Reason)
    assert all(CODES[reason.rule.code] == REASONS[reason] for reason in Reason)
    refusal = migrate_source(SPEC_MODULE.replace("(1,)", "(-1,)"), "m.py").refused[0]
    finding = refusal.diagnostic("m.py")
    assert (finding.code, finding.line, finding.is_error) == ("JR203", 7, False)
    assert finding.format("refusal").startswith("m.py:7: refused f: static_argnums has -1")
    assert finding.format("refusal").endswith("[negative] (JR203)")
