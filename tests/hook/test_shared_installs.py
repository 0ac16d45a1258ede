"""Installs the hook cannot write to, or shares with another version: what each process pays.

A root-owned install imported by an unprivileged user (``setpriv``; root writes through any mode
bits) hashes jaxrewrite's sources once per process, however many opted-in modules it imports,
and imports them uncached: counted through the ``JAXREWRITE_DEBUG`` trace (hook/cachetag.py says
"hashed", hook/pycfile.py "pyc not written" for each refused write), and through strace.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_hook import FAKE_JAX, REPO

NOBODY = 65534
OPTED_IN = """\
# jaxrewrite: enable
import jax
from jaxrewrite.markers import Static


@jax.jit
def f(x, n: Static[int]):
    return x
"""
MODULES = ["mods.m1", "mods.m2", "mods.m3"]
PROBE = (
    "import sys, importlib, jaxrewrite\njaxrewrite.install()\nfor name in sys.argv[1:]:\n"
    "    importlib.import_module(name)\n"
)


def _python_for_nobody() -> str | None:
    """An interpreter of this version the unprivileged user can run, or None."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    for candidate in (
        sys.executable,
        f"/usr/bin/{version}",
        f"/usr/local/bin/{version}",
    ):
        done = subprocess.run(
            [
                "setpriv",
                f"--reuid={NOBODY}",
                f"--regid={NOBODY}",
                "--clear-groups",
                candidate,
                "-c",
                "import json",
            ],
            capture_output=True,
            cwd="/",
            check=False,
        )
        if done.returncode == 0:
            return candidate
    return None


def _age(root: Path) -> None:
    then = time.time_ns() - 3600 * 1_000_000_000
    for path in [root, *root.rglob("*")]:
        os.utime(path, ns=(then, then))


def _site(base: Path, version: str | None = None, name: str = "site") -> Path:
    """A folder with jaxrewrite (its ``__version__`` replaced when given), its third-party
    imports, a fake jax and three opted-in modules, every file an hour old, world-readable."""
    import astor
    import typing_extensions

    site = base / name
    site.mkdir()
    shutil.copy(typing_extensions.__file__, site / "typing_extensions.py")
    shutil.copytree(
        os.path.dirname(astor.__file__),
        site / "astor",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copytree(
        REPO / "jaxrewrite",
        site / "jaxrewrite",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    if version is not None:
        (site / "jaxrewrite" / "version.py").write_text(f'__version__ = "{version}"\n')
    (site / "jax").mkdir()
    (site / "jax" / "__init__.py").write_text(FAKE_JAX)
    (site / "mods").mkdir()
    (site / "mods" / "__init__.py").write_text("")
    for module in MODULES:
        (site / "mods" / f"{module.split('.')[1]}.py").write_text(OPTED_IN)
    for path in [site, *site.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    _age(site)
    return site


@pytest.fixture
def base() -> Iterator[Path]:
    """A folder every user can enter (pytest's tmp_path is private to its owner)."""
    folder = Path(tempfile.mkdtemp(prefix="jaxrewrite-shared-", dir="/tmp"))
    try:
        folder.chmod(0o755)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _env(*path: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONSAFEPATH")
    }
    env.update(
        PYTHONPATH=os.pathsep.join(map(str, path)),
        JAXREWRITE_DEBUG="1",
        HOME="/nonexistent",
    )
    return env


def _as_nobody(python: str, site: Path, *prefix: str) -> subprocess.CompletedProcess[str]:
    argv = [
        *prefix,
        "setpriv",
        f"--reuid={NOBODY}",
        f"--regid={NOBODY}",
        "--clear-groups",
        python,
        "-c",
        PROBE,
        *MODULES,
    ]
    done = subprocess.run(
        argv,
        cwd="/",
        env=_env(site),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_a_read_only_install_hashes_once_and_imports_uncached(base: Path) -> None:
    """A process hashes jaxrewrite's sources once (not once per stored module), and a folder it
    cannot write is no error: each module is imported, rewritten, and nothing is left there."""
    python = _python_for_nobody()
    if python is None:
        pytest.skip("needs root, setpriv and a Python the unprivileged user can run")
    site = _site(base)
    for _ in range(2):  # nothing is written, so every process pays the same
        trace = _as_nobody(python, site).stderr
        assert (
            len(re.findall(r"^jaxrewrite: hashed \d+ jaxrewrite sources", trace, re.MULTILINE)) == 1
        ), trace
        refused = re.findall(r"^jaxrewrite: pyc not written for (.*): ", trace, re.MULTILINE)
        assert sorted(os.path.basename(path) for path in refused) == ["m1.py", "m2.py", "m3.py"], (
            trace
        )
    assert not (site / "mods" / "__pycache__").exists()


def test_a_read_only_install_under_strace(base: Path, tmp_path: Path) -> None:
    """The same counted by the kernel: jaxrewrite's sources opened for hashing, and mkdir of the
    modules' ``__pycache__`` (Python's own try for ``mods/__init__`` and jaxrewrite's one)."""
    python = _python_for_nobody()
    if python is None or shutil.which("strace") is None:
        pytest.skip("needs root, setpriv, strace and a Python the unprivileged user can run")
    site = _site(base)
    log = tmp_path / "strace.log"
    done = subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-e",
            "trace=openat,mkdir",
            "-o",
            str(log),
            "--",
            "true",
        ],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip("strace cannot trace here (no ptrace)")
    _as_nobody(python, site, "strace", "-f", "-qq", "-e", "trace=openat,mkdir", "-o", str(log))
    calls = log.read_text().splitlines()
    # An engine module is opened once to hash it and once by Python to import it (no pyc can be
    # written for it either); the hook never reads jaxrewrite's own modules for a pragma.
    plan = [
        line for line in calls if '/jaxrewrite/engine/edits/render.py"' in line and "openat" in line
    ]
    assert len(plan) == 2, plan
    made = [line for line in calls if "mkdir(" in line and "/mods/__pycache__" in line]
    assert len(made) == 4, made  # Python's own try for mods/__init__, then the hook's per module
