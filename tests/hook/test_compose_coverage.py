"""coverage.py measures an opted-in module at the user's own lines (issue 43): under ``coverage
run`` with the hook installed by the program (alone, or beside jaxtyping's hook), under
``coverage run -m jaxrewrite script.py``, and under pytest-cov with the plugin.

Each opted-in file has a twin written by hand in plain JAX/Equinox, line for line (the same
statements on the same lines, the hand-written spelling where the rewrite writes one): both run
the same calls in one process, and coverage must report the same lines and branches, executed and
missing, for the two. So no line moved, and no line or branch is reported for text jaxrewrite
added. The real coverage (and pytest-cov) in child processes; no mock.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from prewarmed import Prewarmed
from support import child_env, python, write

pytest.importorskip("coverage")
pytest.importorskip("equinox")

MODULE = """\
# jaxrewrite: enable
import equinox as eqx
import jax
from jaxrewrite import Static

TRACES = []


@jax.jit
def f(x, n: Static[int]):
    TRACES.append(n)
    for _ in range(n):
        x = x * 2
    if n > 10:
        x = x + 1
    return x


class Scale(eqx.Module):
    w: jax.Array
    act: Static[str]

    def __call__(self, x):
        if self.act == "relu":
            return jax.nn.relu(self.w * x)
        return self.w * x


def g(x, n: Static[int]):
    return x * n


k = jax.jit(g)
"""

#: ``MODULE`` written by hand, line for line: these lines (numbered from 1) differ.
BY_HAND = {
    1: "# written by hand",
    3: "import functools, jax",
    4: "Static = None",
    9: '@functools.partial(jax.jit, static_argnames="n")',
    10: "def f(x, n: int):",
    21: "    act: str = eqx.field(static=True)",
    29: "def g(x, n: int):",
    33: 'k = jax.jit(g, static_argnames="n")',
}
HAND = "".join(
    BY_HAND.get(number, line) + "\n" for number, line in enumerate(MODULE.splitlines(), 1)
)

CALLS = """
import jax.numpy as jnp
for _ in range(2):  # the second round hits jit's cache: no trace, no line of f's body runs
    assert f(jnp.ones(2), 2).tolist() == [4.0, 4.0] and f(jnp.ones(2), 3).tolist() == [8.0, 8.0]
    assert Scale(jnp.ones(2), "relu")(-jnp.ones(2)).tolist() == [0.0, 0.0]
    assert k(jnp.ones(2), 3).tolist() == [3.0, 3.0]
assert TRACES == [2, 3], TRACES
"""

#: What coverage reports for either file after ``CALLS``: the user's lines, with the branch
#: never taken (line 15) and the return after the relu (line 26) missing.
EXECUTED = [2, 3, 4, 6, 9, 10, 11, 12, 13, 14, 16, 19, 20, 21, 23, 24, 25, 29, 30, 33]
MISSING = [15, 26]

#: What installs jaxtyping's import hook for ``pkgv``, before jaxrewrite's or after it.
JAXTYPING = "import jaxtyping; jaxtyping.install_import_hook('pkgv', 'beartype.beartype')"

MAIN = """\
import sys
import jaxrewrite
if sys.argv[1] == "jaxtyping-first":
    exec(JAXTYPING)
jaxrewrite.install(["pkgv"])
if sys.argv[1] == "jaxtyping-last":  # its finder goes first: jaxrewrite's is put in front again
    exec(JAXTYPING)
    jaxrewrite.install(["pkgv"])
from pkgv import mod, hand
for module in (mod, hand):
    exec(CALLS, vars(module))
"""


def report(cov_json: Path, *names: str) -> dict[str, dict[str, Any]]:
    """What coverage's JSON report says of each file: lines and branches, executed and missing."""
    files = json.loads(cov_json.read_text())["files"]
    keys = ("executed_lines", "missing_lines", "executed_branches", "missing_branches")
    return {name: {key: files[name][key] for key in keys} for name in names}


def coverage(root: Path, prewarmed: Prewarmed, *args: str) -> None:
    for command in (["run", "--branch", "--source=.", *args], ["json", "-o", "cov.json"]):
        done = python(
            "-m", "coverage", *command, cwd=root, env=child_env(path=[root]), prewarmed=prewarmed
        )
        assert done.returncode == 0, done.stdout + done.stderr


def assert_same(got: dict[str, dict[str, Any]], ours: str, hand: str) -> None:
    assert got[ours] == got[hand]
    assert got[ours]["executed_lines"][: len(EXECUTED)] == EXECUTED
    assert got[ours]["missing_lines"] == MISSING


@pytest.mark.parametrize("order", ["alone", "jaxtyping-first", "jaxtyping-last"])
def test_coverage_run_reports_the_users_lines(
    tmp_path: Path, prewarmed: Prewarmed, order: str
) -> None:
    if order != "alone":
        pytest.importorskip("jaxtyping")
    write(tmp_path / "pkgv" / "__init__.py", "")
    write(tmp_path / "pkgv" / "mod.py", MODULE)
    write(tmp_path / "pkgv" / "hand.py", HAND)
    write(tmp_path / "main.py", f"JAXTYPING = {JAXTYPING!r}\nCALLS = {CALLS!r}\n" + MAIN)
    coverage(tmp_path, prewarmed, "main.py", order)
    assert_same(
        report(tmp_path / "cov.json", "pkgv/mod.py", "pkgv/hand.py"), "pkgv/mod.py", "pkgv/hand.py"
    )


def test_coverage_run_of_the_runner_reports_the_scripts_lines(
    tmp_path: Path, prewarmed: Prewarmed
) -> None:
    """``coverage run -m jaxrewrite script.py``: the runner rewrites the script itself."""
    write(tmp_path / "script.py", MODULE + CALLS)
    write(tmp_path / "by_hand.py", HAND + CALLS)
    coverage(tmp_path, prewarmed, "-m", "jaxrewrite", "script.py")
    ours = report(tmp_path / "cov.json", "script.py")
    coverage(tmp_path, prewarmed, "by_hand.py")
    assert_same({**ours, **report(tmp_path / "cov.json", "by_hand.py")}, "script.py", "by_hand.py")


TEST_FILE = """\
{head}
from pkgv.{module} import f, TRACES


{deco}
def local(x, n: {static}):
    for _ in range(n):
        x = x + 1
    return x


def test_it():
    assert f(jnp.ones(2), 2).tolist() == [4.0, 4.0]
    assert local(jnp.ones(2), 3).tolist() == [4.0, 4.0]
    if TRACES == ["never"]:
        raise AssertionError
"""

TEST_HEADS = {
    "ours": (
        "# jaxrewrite: enable\nimport jax, jax.numpy as jnp\nfrom jaxrewrite import Static",
        "@jax.jit",
        "Static[int]",
    ),
    "hand": (
        "# by hand\nimport functools, jax, jax.numpy as jnp\nStatic = None",
        '@functools.partial(jax.jit, static_argnames="n")',
        "int",
    ),
}


def test_pytest_cov_reports_the_users_lines(tmp_path: Path, prewarmed: Prewarmed) -> None:
    """pytest-cov with the plugin: the package under test (``--jaxrewrite-packages``) and an
    opted-in test module (rewritten, then pytest's assertion rewriting) at their own lines."""
    pytest.importorskip("pytest_cov")
    write(tmp_path / "pkgv" / "__init__.py", "")
    write(tmp_path / "pkgv" / "mod.py", MODULE)
    write(tmp_path / "pkgv" / "hand.py", HAND)
    for name, module in (("ours", "mod"), ("hand", "hand")):
        head, deco, static = TEST_HEADS[name]
        write(
            tmp_path / "tests" / f"test_{name}.py",
            TEST_FILE.format(head=head, module=module, deco=deco, static=static),
        )
    args = ["--jaxrewrite-packages=pkgv", "--cov=.", "--cov-branch", "--cov-report=json:cov.json"]
    done = python(
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-n",
        "0",
        *args,
        "tests",
        cwd=tmp_path,
        env=child_env(path=[tmp_path]),
        prewarmed=prewarmed,
    )
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr
    got = report(
        tmp_path / "cov.json",
        "pkgv/mod.py",
        "pkgv/hand.py",
        "tests/test_ours.py",
        "tests/test_hand.py",
    )
    assert got["tests/test_ours.py"] == got["tests/test_hand.py"]
    assert got["tests/test_ours.py"]["missing_lines"] == [18]
    assert got["pkgv/mod.py"] == got["pkgv/hand.py"]
    assert got["pkgv/mod.py"]["missing_lines"] == [15, 24, 25, 26, 30], got["pkgv/mod.py"]
