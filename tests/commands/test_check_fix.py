"""``check``'s rough edges (issue 45 item 5): ``--fix`` adds the missing pragma (JR001), says why
a plain-JAX module is not fixed, ``--fix --diff`` previews without writing; a folder without
Python files warns as ruff does; the top-level usage line names every option of ``check``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from golden_cases import GOLDEN
from support import jaxrewrite, python, write

from jaxrewrite.commands.check import parser
from jaxrewrite.header import PRAGMA

JR001 = (GOLDEN / "check" / "jr001_no_pragma.py").read_text(encoding="utf-8")
PLAIN = (
    Path(__file__).resolve().parents[1] / "rules" / "tracetime_cases" / "fail_range.py"
).read_text(encoding="utf-8")


def check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return jaxrewrite("check", "--no-cache", *args, cwd=cwd)


def test_fix_adds_the_missing_pragma(tmp_path: Path) -> None:
    m = write(tmp_path / "m.py", JR001)
    assert check("m.py", cwd=tmp_path).returncode == 1  # JR001 before
    done = check("--fix", "m.py", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "All checks passed!\n"), done
    assert done.stderr == f"m.py: Fixed JR001: added '{PRAGMA}' at line 1\n"
    assert m.read_text(encoding="utf-8") == PRAGMA + "\n" + JR001
    again = check("--fix", "m.py", cwd=tmp_path)
    assert (
        again.returncode == 0
        and again.stderr == ""
        and m.read_text(encoding="utf-8") == PRAGMA + "\n" + JR001
    )


@pytest.mark.parametrize(
    "head, at",
    [
        ("#!/usr/bin/env python\n", 2),
        ("# -*- coding: utf-8 -*-\n", 2),
        ("#!/usr/bin/env python\n# coding: utf-8\n", 3),
    ],
    ids=["shebang", "coding", "both"],
)
def test_the_pragma_goes_after_a_shebang_and_a_coding_line(
    tmp_path: Path, head: str, at: int
) -> None:
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
    """With the pragma, ``n: Static[int]`` means ``static_argnames="n"``: same results, same
    traces."""
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


def test_fix_in_a_plain_jax_module_writes_the_keywords_jax_reads(tmp_path: Path) -> None:
    """No pragma, no marker: a bare ``@jax.jit`` becomes ``functools.partial(jax.jit, ...)`` with
    ``import functools`` added, said in words that match what was written; the program then runs
    as the same one written by hand."""
    m = write(tmp_path / "p.py", PLAIN + "print(float(main().sum()), f._cache_size())\n")
    assert python("p.py", cwd=tmp_path).returncode != 0  # JAX's own verdict on the unfixed module
    preview = check("--diff", "p.py", cwd=tmp_path)
    assert (
        preview.returncode == 1
        and "+@functools.partial(jax.jit, static_argnames=('n',))" in preview.stdout
    )
    assert "+import functools" in preview.stdout and m.read_text(encoding="utf-8").startswith(PLAIN)
    done = check("--fix", "p.py", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "All checks passed!\n"), done
    assert done.stderr == (
        "p.py: Fixed JR006: 'f': @jax.jit became @functools.partial(jax.jit, "
        "static_argnames=('n',))\n"
        "p.py: Fixed JR006: 'import functools' added (functools.partial needs it)\n"
    )
    assert "Static" not in m.read_text(encoding="utf-8")
    assert python("p.py", cwd=tmp_path).stdout == "12.0 1\n"


def test_fix_adds_the_missing_marker_import_never_a_second_marker(tmp_path: Path) -> None:
    """``Static`` used without its import is JR015 (not a JR006 asking for the annotation already
    written); the fix is the import, and the module then runs."""
    body = (
        "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef make(x, n: Static[int]):\n"
        "    return x + jnp.zeros(n)\n"
    )
    source = f"{PRAGMA}\n{body}\nprint(make(jnp.ones(2), 2))\n"
    m = write(tmp_path / "m.py", source)
    assert "NameError" in jaxrewrite("m.py", cwd=tmp_path).stderr
    found = check("m.py", cwd=tmp_path)
    assert (
        found.returncode == 1
        and "JR015 'Static' in the annotation of 'n' is not imported" in found.stdout
    )
    assert "JR006" not in found.stdout
    done = check("--fix", "m.py", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "All checks passed!\n",
        "m.py: Fixed JR015: added 'from jaxrewrite import Static'\n",
    )
    fixed = m.read_text(encoding="utf-8")
    assert (
        "from jaxrewrite import Static\n" in fixed
        and "JrStatic" not in fixed
        and "n: Static[int]" in fixed
    )
    assert jaxrewrite("m.py", cwd=tmp_path).stdout == "[1. 1.]\n"
    write(tmp_path / "n.py", body)  # no pragma either
    done = check("--fix", "n.py", cwd=tmp_path)
    assert "n.py: Fixed JR015: added 'from jaxrewrite import Static'" in done.stderr, done
    assert f"n.py: Fixed JR001: added '{PRAGMA}' at line 1" in done.stderr and done.returncode == 0


def test_fix_writes_nothing_it_cannot_prove(tmp_path: Path) -> None:
    """Where the fixed module would be refused at import, or the fix would bring a new finding,
    nothing is written and stderr says why."""
    refused = (
        "import jax\nfrom jaxrewrite import Static\n\n\n@jax.jit\n"
        "def f(x, *n: Static[int]):\n    return x\n\n\n"
        "@jax.jit\ndef g(x, k: Static[int]):\n    return x * k\n"
    )
    m = write(tmp_path / "r.py", refused)
    done = check("--fix", "r.py", cwd=tmp_path)
    assert (
        done.returncode == 1 and "JR001" in done.stdout and m.read_text(encoding="utf-8") == refused
    )
    assert "r.py: not fixed: the fixed module would fail to import (RewriteError: " in done.stderr
    assert "JR101" in done.stderr and done.stderr.endswith("; nothing written\n"), done.stderr
    unused = "def helper(x, n: Static[int]):\n    return x * n\n"
    m = write(tmp_path / "s.py", unused)
    done = check("--fix", "s.py", cwd=tmp_path)
    assert (
        done.returncode == 1 and "JR015" in done.stdout and m.read_text(encoding="utf-8") == unused
    )
    assert done.stderr == "s.py: not fixed: the fix would add JR002 findings; nothing written\n"


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
        assert done.stderr == f"m.py: Would fix JR001: added '{PRAGMA}' at line 1\n"  # ruff's words
    assert check("--diff", "clean.py", cwd=tmp_path).returncode == 0
    applied = subprocess.run(
        ["patch", "-p1"],
        input=check("--diff", "m.py", cwd=tmp_path).stdout,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
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
    missing = [
        names
        for names in actions
        if "--help" not in names and not any(f"[{n}" in text for n in names)
    ]
    assert not missing, missing
    for needle in ("--fix", "-q", "--config", "--stdin-filename", "--no-cache", "--diff"):
        assert needle in text, needle


@pytest.mark.parametrize(
    "head, added",
    [
        ("import functools\nimport jax\n", False),
        ("import jax\n", True),
        ('"""Doc."""\nimport jax\n', True),
    ],
    ids=["has-it", "lacks-it", "docstring"],
)
def test_a_plain_fix_adds_import_functools_once_where_missing(head: str, added: bool) -> None:
    from jaxrewrite.migrate.fix import fix_source

    body = "import jax.numpy as jnp\n\n\n@jax.jit\ndef f(x, n):\n    return x + jnp.zeros(n)\n"
    fixed = fix_source(head + body, "p.py")
    assert fixed.text.count("import functools\n") == 1 and not fixed.refused, fixed
    assert fixed.text.startswith(
        '"""Doc."""\nimport functools\n' if head.startswith('"""') else "import functools\n"
    )
    assert ("'import functools' added (functools.partial needs it)" in fixed.said) is added
    shadowed = fix_source(
        "import jax\nimport jax.numpy as jnp\nfunctools = None\n\n\n" + body.split("\n\n\n")[1],
        "q.py",
    )
    assert (
        shadowed.text.startswith("import jax\n")
        and "functools' is bound to something else" in shadowed.refused[0]
    )
