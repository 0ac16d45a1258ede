"""``check``'s rough edges (issue 45 item 5): ``--fix`` adds the missing pragma (JR001), says why
a plain-JAX module is not fixed, ``--fix --diff`` previews without writing; a folder without
Python files warns as ruff does; the top-level usage line names every option of ``check``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support import jaxrewrite, python, write
from golden_cases import GOLDEN
from jaxrewrite.commands.check import parser
from jaxrewrite.header import PRAGMA

JR001 = (GOLDEN / "check" / "jr001_no_pragma.py").read_text(encoding="utf-8")
PLAIN = (Path(__file__).parent / "tracetime_cases" / "fail_range.py").read_text(encoding="utf-8")


def check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return jaxrewrite("check", "--no-cache", *args, cwd=cwd)


def test_fix_adds_the_missing_pragma(tmp_path: Path) -> None:
    m = write(tmp_path / "m.py", JR001)
    assert check("m.py", cwd=tmp_path).returncode == 1  # JR001 before
    done = check("--fix", "m.py", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "All checks passed!\n"), done
    assert f"m.py: fixed: JR001: added '{PRAGMA}' at line 1" in done.stderr
    assert m.read_text(encoding="utf-8") == PRAGMA + "\n" + JR001
    again = check("--fix", "m.py", cwd=tmp_path)
    assert again.returncode == 0 and again.stderr == "" and m.read_text(encoding="utf-8") == PRAGMA + "\n" + JR001


@pytest.mark.parametrize(
    "head, at",
    [("#!/usr/bin/env python\n", 2), ("# -*- coding: utf-8 -*-\n", 2), ("#!/usr/bin/env python\n# coding: utf-8\n", 3)],
    ids=["shebang", "coding", "both"],
)
def test_the_pragma_goes_after_a_shebang_and_a_coding_line(tmp_path: Path, head: str, at: int) -> None:
    m = write(tmp_path / "m.py", head + JR001)
    done = check("--fix", "m.py", cwd=tmp_path)
    assert done.returncode == 0 and f"at line {at}" in done.stderr, done
    assert m.read_text(encoding="utf-8") == head + PRAGMA + "\n" + JR001


def test_the_pragma_keeps_crlf_line_endings(tmp_path: Path) -> None:
    m = tmp_path / "m.py"
    m.write_bytes(JR001.replace("\n", "\r\n").encode())
    assert check("--fix", "m.py", cwd=tmp_path).returncode == 0
    assert m.read_bytes() == (PRAGMA + "\n" + JR001).replace("\n", "\r\n").encode()


def test_an_ignored_jr001_is_not_fixed(tmp_path: Path) -> None:
    m = write(tmp_path / "m.py", JR001)
    assert check("--fix", "--ignore", "JR001", "m.py", cwd=tmp_path).returncode == 0
    assert m.read_text(encoding="utf-8") == JR001


def test_the_fixed_module_runs_as_the_same_program_jitted_by_hand(tmp_path: Path) -> None:
    """With the pragma, ``n: Static[int]`` means ``static_argnames="n"``: same results, same traces."""
    run = (
        "\nimport jax.numpy as jnp\n"
        "print(float(scale(jnp.float32(2.0), 3)), float(scale(jnp.float32(2.0), 3)),"
        " float(scale(jnp.float32(2.0), 4)), scale._cache_size())\n"
    )
    write(tmp_path / "fixed.py", JR001 + run)
    assert check("--fix", "fixed.py", cwd=tmp_path).returncode == 0
    by_hand = JR001.replace("@jax.jit\n", '@partial(jax.jit, static_argnames="n")\n').replace(
        "import jax\n", "import jax\nfrom functools import partial\n"
    )
    write(tmp_path / "by_hand.py", by_hand.replace("n: Static[int]", "n") + run)
    rewritten = jaxrewrite("fixed.py", cwd=tmp_path)
    plain = python("by_hand.py", cwd=tmp_path)
    assert rewritten.returncode == 0 and plain.returncode == 0, (rewritten.stderr, plain.stderr)
    assert rewritten.stdout == plain.stdout == "6.0 6.0 8.0 2\n"


def test_fix_says_why_a_plain_jax_module_is_not_fixed(tmp_path: Path) -> None:
    m = write(tmp_path / "p.py", PLAIN)
    done = check("--fix", "p.py", cwd=tmp_path)
    assert done.returncode == 1 and "JR006" in done.stdout
    assert "p.py: not fixed: 'f' (line 3): a bare @jax.jit takes no keywords" in done.stderr, done.stderr
    assert "@functools.partial(jax.jit, static_argnames=('n',))" in done.stderr, done.stderr
    assert m.read_text(encoding="utf-8") == PLAIN


def test_fix_diff_previews_and_writes_nothing(tmp_path: Path) -> None:
    m = write(tmp_path / "m.py", JR001)
    write(tmp_path / "clean.py", "x = 1\n")
    for args in (["--fix", "--diff"], ["--diff"]):  # --diff implies --fix, as in ruff
        done = check(*args, ".", cwd=tmp_path)
        assert done.returncode == 1, done
        assert done.stdout == f"--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,4 @@\n+{PRAGMA}\n" + "".join(
            f" {line}\n" for line in JR001.splitlines()[:3]
        )
        assert m.read_text(encoding="utf-8") == JR001
    assert check("--diff", "clean.py", cwd=tmp_path).returncode == 0
    applied = subprocess.run(["patch", "-p1"], input=check("--diff", "m.py", cwd=tmp_path).stdout, cwd=tmp_path,
                             capture_output=True, text=True, check=False)
    assert applied.returncode == 0 and m.read_text(encoding="utf-8") == PRAGMA + "\n" + JR001
    stdin = jaxrewrite("check", "--diff", "-", cwd=tmp_path, stdin=JR001)
    assert stdin.returncode == 2 and "not - (standard input)" in stdin.stderr


def test_a_folder_without_python_files_warns_as_ruff_does(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "notes.txt", "jax.jit\n")
    for args in (["docs"], ["--exclude", "*.py", "."]):
        write(tmp_path / "m.py", JR001)
        done = check(*args, cwd=tmp_path)
        assert (done.returncode, done.stdout) == (0, "All checks passed!\n")
        assert done.stderr == "warning: No Python files found under the given path(s)\n"


def test_the_usage_line_names_every_option_of_check() -> None:
    usage = jaxrewrite("--help", cwd=Path.cwd()).stdout
    text = usage[usage.index(" check ") : usage.index(" migrate ")]
    actions = [a.option_strings for a in parser("jaxrewrite")._actions if a.option_strings]
    missing = [names for names in actions if "--help" not in names and not any(f"[{n}" in text for n in names)]
    assert not missing, missing
    for needle in ("--fix", "-q", "--config", "--stdin-filename", "--no-cache", "--diff"):
        assert needle in text, needle
