"""The runner's hook reaches the Python processes the program starts (issue 25): multiprocessing
children (spawn, forkserver, ProcessPoolExecutor with spawn), xdist workers, and
``subprocess.run([sys.executable, ...])``; where it cannot, NotRewrittenWarning says what happened.

Static is proven static in the child by trace counts (one trace per distinct value).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import support
from support import REPO, child_env, write


def jaxrewrite(*args: str, cwd: Path, **options: Any) -> subprocess.CompletedProcess[str]:
    """``support.jaxrewrite``, forked from the session's prewarmed interpreter where it can be."""
    return support.jaxrewrite(*args, cwd=cwd, prewarmed=support.server(), **options)


LIB = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

traces = []


@jax.jit
def scale(x, n: Static[int]):
    traces.append(n)
    return x * n


def work():
    for n in (2, 2, 3):
        scale(1.0, n)
    return len(traces)  # 2 when n is static (one trace per value), 1 when it is traced
"""

MAIN = """\
# jaxrewrite: enable
import concurrent.futures, json, multiprocessing as mp, sys
import jax
from jaxrewrite import Static
import lib

seen = []


@jax.jit
def mine(x, k: Static[int]):
    seen.append(k)
    return x + k


def job():
    for k in (1, 1, 2):
        mine(0.0, k)
    return {"lib": lib.work(), "main": len(seen)}


if __name__ == "__main__":
    found = {}
    for method in ("spawn", "forkserver"):
        with mp.get_context(method).Pool(1) as pool:
            found[method] = pool.apply(job)
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as executor:
        found["executor"] = executor.submit(job).result()
    print(json.dumps(found))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="forkserver is POSIX only")
def test_multiprocessing_children_run_rewritten_code(tmp_path: Path) -> None:
    write(tmp_path / "lib.py", LIB)
    write(tmp_path / "main.py", MAIN)
    done = jaxrewrite("main.py", cwd=tmp_path, env=child_env(JAX_PLATFORMS="cpu"))
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    want = {"lib": 2, "main": 2}
    assert found == {"spawn": want, "forkserver": want, "executor": want}, done.stderr
    assert "NotRewrittenWarning" not in done.stderr and "sitecustomize" not in done.stderr, (
        done.stderr
    )


def test_xdist_workers_import_the_library_rewritten(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    write(tmp_path / "mylib" / "__init__.py", "")
    write(tmp_path / "mylib" / "core.py", LIB)
    for name in ("a", "b"):
        write(
            tmp_path / f"test_{name}.py",
            "import mylib.core\n\n\ndef test_static():\n    assert mylib.core.work() == 2\n",
        )
    done = jaxrewrite(
        "-m",
        "pytest",
        "-n",
        "2",
        "-p",
        "no:cacheprovider",
        "-q",
        "-W",
        "error::jaxrewrite.NotRewrittenWarning",
        cwd=tmp_path,
        env=child_env(path=[tmp_path], JAX_PLATFORMS="cpu"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


CHILD = """\
# jaxrewrite: enable
import json
import jax
from jaxrewrite import Static
import lib


@jax.jit
def mine(x, k: Static[int]):
    return x + k


print(json.dumps(lib.work()))
"""

PARENT = """\
import os, subprocess, sys
env = dict(os.environ)
if sys.argv[1:] == ["replaced"]:
    env["PYTHONPATH"] = {repo!r} + os.pathsep + os.getcwd()  # the program's own PYTHONPATH
done = subprocess.run([sys.executable, "child.py"], env=env, capture_output=True, text=True)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
"""


def test_a_script_started_with_sys_executable_gets_the_hook_and_a_precise_warning(
    tmp_path: Path,
) -> None:
    write(tmp_path / "lib.py", LIB)
    write(tmp_path / "child.py", CHILD)
    write(tmp_path / "parent.py", PARENT.format(repo=str(REPO)))
    done = jaxrewrite("parent.py", cwd=tmp_path, env=child_env(JAX_PLATFORMS="cpu"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == 2  # its import was rewritten
    # The script itself was run as written: the warning says how it was started, and the fix.
    assert "NotRewrittenWarning" in done.stderr and "as 'python SCRIPT'" in done.stderr, done.stderr
    assert "[sys.executable, '-m', 'jaxrewrite', SCRIPT" in done.stderr
    assert "import order" not in done.stderr and "before jaxrewrite.install()" not in done.stderr


def test_a_child_given_another_pythonpath_is_told_what_happened(tmp_path: Path) -> None:
    write(tmp_path / "lib.py", LIB)
    write(tmp_path / "child.py", CHILD.replace("# jaxrewrite: enable\n", ""))
    write(tmp_path / "parent.py", PARENT.format(repo=str(REPO)))
    done = jaxrewrite("parent.py", "replaced", cwd=tmp_path, env=child_env(JAX_PLATFORMS="cpu"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == 1  # n traced: run unrewritten
    assert "NotRewrittenWarning" in done.stderr and "module 'lib' was not rewritten" in done.stderr
    assert "without the runner's hook" in done.stderr and "PYTHONPATH" in done.stderr, done.stderr


def test_a_sitecustomize_of_the_environment_still_runs(tmp_path: Path) -> None:
    site = write(
        tmp_path / "site" / "sitecustomize.py", "import builtins\nbuiltins.SITE_RAN = True\n"
    ).parent
    write(
        tmp_path / "parent.py",
        "import subprocess, sys\n"
        "code = 'import json, sys, jaxrewrite.commands.run as c, "
        "jaxrewrite.notrewritten as n; print(json.dumps([SITE_RAN, n.runner_child, c.SITE "
        "in sys.path]))'\n"
        "subprocess.run([sys.executable, '-c', code])\n",
    )
    done = jaxrewrite("parent.py", cwd=tmp_path, env=child_env(path=[site]))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [True, True, False], (
        done.stderr
    )  # its own, ours, and off sys.path
    assert os.environ.get("JAXREWRITE_RUNNER") is None  # the tests' own process is no runner child
