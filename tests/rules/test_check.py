"""``jaxrewrite check``: golden findings per code, the command's formats, filters, noqa and exit
codes.

Golden cases live in ``golden/check/``: ``NAME.py`` and ``NAME.findings``, the text ``check``
prints for it (``--update-golden`` rewrites them; read every change).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from golden_cases import GOLDEN, ROOT
from support import jaxrewrite, write

from jaxrewrite.commands.check import check_text, render
from jaxrewrite.config import Config
from jaxrewrite.engine.findings.checks.registry import CODES

CASES = sorted((GOLDEN / "check").glob("*.py"))


def _findings(path: Path) -> str:
    display = path.relative_to(ROOT).as_posix()
    return render(check_text(path.read_text(encoding="utf-8"), display), "text")


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_golden_findings(path: Path, update_golden: bool) -> None:
    expected = path.with_suffix(".findings")
    text = _findings(path)
    if update_golden:
        expected.write_text(text, encoding="utf-8")
        return
    assert expected.exists(), f"missing {expected.name}; run pytest --update-golden and read it"
    assert text == expected.read_text(encoding="utf-8")


def test_every_code_has_a_golden_case() -> None:
    seen = {line.split(" ")[1] for path in CASES for line in _findings(path).splitlines()}
    lint = {code for code in CODES if code.startswith("JR00")}
    assert lint <= seen, sorted(lint - seen)
    assert {"JR101", "JR111", "JR112", "JR120"} <= seen


def test_golden_inputs_cover_a_clean_module() -> None:
    assert _findings(GOLDEN / "check" / "clean.py") == ""


# -- the command ------------------------------------------------------------------------------


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return jaxrewrite("check", *args, cwd=cwd)


HELPER = (GOLDEN / "check" / "jr002_helper.py").read_text(encoding="utf-8")
NO_PRAGMA = (GOLDEN / "check" / "jr001_no_pragma.py").read_text(encoding="utf-8")


def test_clean_tree_exits_0_and_prints_nothing(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "plain.py", "import jax\nx = 1\n")
    write(
        tmp_path / "pkg" / "clean.py", (GOLDEN / "check" / "clean.py").read_text(encoding="utf-8")
    )
    done = run("pkg", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "All checks passed!\n", "")
    assert run("-q", "pkg", cwd=tmp_path).stdout == ""


def test_findings_exit_1_flake8_style_over_folders(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "sub" / "helper.py", HELPER)
    write(tmp_path / "pkg" / "a.py", NO_PRAGMA)
    write(tmp_path / "pkg" / ".hidden" / "skipped.py", NO_PRAGMA)
    write(tmp_path / "pkg" / "notes.txt", NO_PRAGMA)
    done = run("pkg", cwd=tmp_path)
    assert done.returncode == 1 and done.stderr == ""
    *lines, last = done.stdout.splitlines()
    assert last == "Found 2 findings in 2 files."
    assert [line.split(": ")[0] for line in lines] == [
        f"pkg{os.sep}a.py:8:14",
        f"pkg{os.sep}sub{os.sep}helper.py:8:10",
    ]
    assert lines[0].split(": ", 1)[1].startswith("JR001 ")
    assert lines[1].split(": ", 1)[1].startswith("JR002 the marker on 'square' of 'g' does nothing")


def test_json_and_github_formats(tmp_path: Path) -> None:
    write(tmp_path / "helper.py", HELPER)
    done = run("--format", "json", "helper.py", cwd=tmp_path)
    assert done.returncode == 1
    (row,) = json.loads(done.stdout)
    assert row == {
        "path": "helper.py",
        "line": 8,
        "col": 10,
        "code": "JR002",
        "message": row["message"],
    }
    assert "'g'" in row["message"]
    github = run("--format", "github", "helper.py", cwd=tmp_path)
    assert github.stdout.startswith("::error file=helper.py,line=8,col=10,title=JR002::")
    assert github.stdout.count("\n") == 1


def test_select_and_ignore_by_code_or_prefix(tmp_path: Path) -> None:
    write(tmp_path / "m.py", (GOLDEN / "check" / "jr003_unhashable.py").read_text(encoding="utf-8"))
    write(tmp_path / "h.py", HELPER)
    every = run("-q", "m.py", "h.py", cwd=tmp_path).stdout.splitlines()
    assert {line.split()[1] for line in every} == {"JR003", "JR002"}
    only = run("-q", "--select", "JR002", "m.py", "h.py", cwd=tmp_path)
    assert (only.returncode, [line.split()[1] for line in only.stdout.splitlines()]) == (
        1,
        ["JR002"],
    )
    none = run("-q", "--ignore", "JR00", "m.py", "h.py", cwd=tmp_path)
    assert (none.returncode, none.stdout) == (0, "")
    both = run("-q", "--select", "JR0", "--ignore", "jr003", "m.py", "h.py", cwd=tmp_path)
    assert [line.split()[1] for line in both.stdout.splitlines()] == ["JR002"]


def test_noqa_on_the_reported_line(tmp_path: Path) -> None:
    lines = _findings(GOLDEN / "check" / "noqa.py").splitlines()
    assert [line.split(": ")[1].split()[0] for line in lines] == ["JR002"]
    assert ":12:" in lines[0]  # the one whose noqa names another code


def test_usage_errors_and_unreadable_input_exit_2(tmp_path: Path) -> None:
    missing = run("nowhere.py", cwd=tmp_path)
    assert missing.returncode == 2 and "nowhere.py: no such file or folder" in missing.stderr
    (tmp_path / "bad.py").write_bytes(b"# jaxrewrite: enable\nx = '\xff'\n")
    bad = run("bad.py", cwd=tmp_path)
    assert (
        bad.returncode == 2
        and "bad.py:2:6: cannot read it as Python source: byte 0xff is not utf-8" in bad.stderr
    )
    unknown = run("--select", "XY9", "bad.py", cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown code or prefix: XY9" in unknown.stderr
    write(tmp_path / "h.py", HELPER)
    mixed = run(
        "h.py", "nowhere.py", cwd=tmp_path
    )  # findings are printed, but unreadable input wins
    assert mixed.returncode == 2 and "JR002" in mixed.stdout


def test_syntax_errors_are_findings(tmp_path: Path) -> None:
    write(tmp_path / "broken.py", "# jaxrewrite: enable\nfrom jaxrewrite import Static\nx = (1,\n")
    done = run("broken.py", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == "broken.py:3:5: JR100 '(' was never closed\nFound 1 finding in 1 file.\n"


def test_files_the_walk_finds_that_never_mention_jaxrewrite_are_not_parsed(tmp_path: Path) -> None:
    """The import hook's needle: in a folder, no "jaxrewrite" and no transform in the bytes, no
    finding is possible and the file is not parsed (parsing them all would double check's time)."""
    write(tmp_path / "pkg" / "broken_but_unrelated.py", "x = (1,\n")
    assert run("pkg", cwd=tmp_path).returncode == 0


def test_a_file_named_on_the_command_line_is_always_parsed(tmp_path: Path) -> None:
    """Issue 45: `check broken.py` said "All checks passed!"; a named file is read as Python
    source."""
    write(tmp_path / "broken_but_unrelated.py", "x = (1,\n")
    done = run("broken_but_unrelated.py", cwd=tmp_path)
    assert done.returncode == 1
    assert (
        done.stdout
        == "broken_but_unrelated.py:1:5: JR100 '(' was never closed\nFound 1 finding in 1 file.\n"
    )
    plain = jaxrewrite("check", "-", cwd=tmp_path, stdin="x = (1,\n")  # standard input too
    assert plain.returncode == 1 and "-:1:5: JR100" in plain.stdout
    noqa = run("--ignore", "JR100", "broken_but_unrelated.py", cwd=tmp_path)
    assert noqa.returncode == 0


def test_binary_files_cannot_be_read_as_python_source(tmp_path: Path) -> None:
    """Issue 45: a binary file passed with rc 0; NUL bytes are no Python source, named or walked."""
    (tmp_path / "blob.py").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00jax.jit")
    for args in (["blob.py"], ["."]):
        done = run(*args, cwd=tmp_path)
        assert (
            done.returncode == 2
            and "blob.py:1:8: cannot read it as Python source: it holds a NUL byte" in done.stderr
        )
        assert "All checks passed" not in done.stdout
    (tmp_path / "blob.py").write_bytes(
        b"x = 1\n\xff\xfe\n"
    )  # not UTF-8, no jaxrewrite, no transform
    done = run(".", cwd=tmp_path)
    assert done.returncode == 2 and "cannot read it as Python source" in done.stderr


def test_show_prints_the_same_findings(tmp_path: Path) -> None:
    write(tmp_path / "helper.py", HELPER)
    write(tmp_path / "late.py", NO_PRAGMA)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in ("helper.py", "late.py"):
        shown = subprocess.run(
            [sys.executable, "-m", "jaxrewrite", "show", name],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
        checked = run("-q", name, cwd=tmp_path)
        assert shown.returncode == 0
        assert checked.stdout and checked.stdout in shown.stderr


def test_options_match_by_prefix() -> None:
    options = Config(select=("JR1",), ignore=("JR11",))
    assert [options.wants(code) for code in ("JR101", "JR111", "JR002")] == [True, False, False]


# -- real code ----------------------------------------------------------------------------------


def test_check_over_installed_jax_and_numpy() -> None:
    """The command over real libraries: they never mention jaxrewrite, so nothing is found."""
    import importlib.util

    roots = []
    for package in ("jax", "numpy"):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations
        roots.extend(spec.submodule_search_locations)
    done = run("-q", *roots, cwd=ROOT)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


#: By default the files that name a transform (where the engine's scopes, ledger and specs do
#: their work) in corpus_support's stable half, and a stable eighth of the others;
#: ``JAXREWRITE_FULL=1`` (as .ci/run sets) reads every file.
SAMPLE = 8
TRANSFORM_WORD = re.compile(
    r"\b(?:jit|pjit|pmap|vmap|grad|checkpoint|remat|custom_vjp|custom_jvp|shard_map|scan|cond|while_loop)\b"
)


def test_check_never_crashes_on_real_code() -> None:
    """Jax's, jaxlib's and numpy's files, opted in with a Static import so the engine analyzes all
    of each: only findings come back, never an exception (and jax uses no Static, so no marker
    findings). By default: the files that name a transform in the corpus's stable half
    (``corpus_support.in_sample``), and one in eight of the others, by a hash of the path below
    the package (the same files everywhere); the printed line says how many.
    ``JAXREWRITE_FULL=1 python -m pytest tests/rules/test_check.py -k real_code`` checks every
    file, as .ci/run does."""
    from corpus_support import SHARE, below, corpus_files, in_sample, read_source
    from depth import FULL

    prefix = "# jaxrewrite: enable\nfrom jaxrewrite import Static\n"
    counts: dict[str, int] = {}
    files = corpus_files()
    assert len(files) > 1000
    roots = {package: corpus_roots(package) for package in {package for package, _ in files}}
    checked = 0
    for package, path in files:
        where = below(next(root for root in roots[package] if path.is_relative_to(root)), path)
        source = read_source(path) if FULL or in_sample(where) else ""
        if not (FULL or in_sample(where, SAMPLE) or TRANSFORM_WORD.search(source)):
            continue
        checked += 1
        for finding in check_text(prefix + source, str(path)):
            counts[finding.code] = counts.get(finding.code, 0) + 1
    covered = (
        "every file"
        if FULL
        else (
            f"those naming a transform in 1 in {SHARE} and 1 in {SAMPLE} of the others "
            "(JAXREWRITE_FULL=1: all)"
        )
    )
    print(
        f"\n[check corpus] {checked} of {len(files)} files analyzed: {covered}; findings {counts}"
    )
    assert checked == len(files) if FULL else checked >= 150, checked  # a sample that lost its way
    assert set(counts) <= {"JR100"}, counts  # Python 2 leftovers in numpy's tests would be JR100


def corpus_roots(package: str) -> list[Path]:
    spec = importlib.util.find_spec(package)
    return [Path(root) for root in (spec.submodule_search_locations or [])] if spec else []
