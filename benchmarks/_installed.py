"""jaxrewrite as users run it, for the import benchmarks: a wheel of this checkout, built and
installed (not editable) into a folder that goes first on the children's ``PYTHONPATH``.

Why not the checkout: an installed wheel carries its cache tag's digests
(jaxrewrite/hook/cachetag.py), so its first opted-in import checks no stat of jaxrewrite's
sources, which a checkout, edited in place, must (``--checkout`` measures that)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: What a build reads: the package and its metadata (a copy, so no build/ lands in the checkout).
_BUILD_INPUTS = (
    "jaxrewrite",
    "setup.py",
    "setup.cfg",
    "pyproject.toml",
    "README.md",
    "LICENSE",
    "MANIFEST.in",
)


def installed(folder: str) -> str:
    """Build a wheel of this checkout and install it under ``folder``; returns the folder to put
    on ``sys.path`` (its ``jaxrewrite`` compiled, as pip leaves an install)."""
    src, wheels, site = (os.path.join(folder, name) for name in ("src", "wheels", "site"))
    for name in _BUILD_INPUTS:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(
                path, os.path.join(src, name), ignore=shutil.ignore_patterns("__pycache__")
            )
        elif path.exists():
            shutil.copy2(path, os.path.join(src, name))
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
    }
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    pip = [sys.executable, "-m", "pip", "-q"]
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", wheels, src], env)
    _run(
        [
            *pip,
            "install",
            "--no-deps",
            "--no-index",
            "--target",
            site,
            *map(str, Path(wheels).glob("*.whl")),
        ],
        env,
    )
    if "\nBUILT = " not in Path(site, "jaxrewrite", "hook", "__init__.py").read_text():
        raise SystemExit(
            "the wheel carries no digests (hook/__init__.py's BUILT): setup.py's build "
            "step did not run"
        )
    return site


def _run(argv: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(
            f"building or installing jaxrewrite's wheel failed: {argv}\n{done.stdout}\n"
            f"{done.stderr}"
        )


_away: tempfile.TemporaryDirectory[str] | None = None


def away() -> str:
    """An empty folder outside the checkout for the children to run in: a ``python -c`` child puts
    its working folder first on ``sys.path``, so one started in the checkout imports the
    checkout's jaxrewrite whatever ``PYTHONPATH`` says (until 2026-12-04 the "installed" rows
    measured the checkout that way, when run from its root, as run.py and CI run them)."""
    global _away
    if _away is None:
        _away = tempfile.TemporaryDirectory(prefix="jaxrewrite-bench-")
    return _away.name


def check_imported_from(root: str, env: dict[str, str]) -> None:
    """Fail unless a child started as the benchmark starts its children imports jaxrewrite from
    ``root``: a benchmark of the wrong package must not print a row."""
    probe = "import jaxrewrite; print(jaxrewrite.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        cwd=away(),
        capture_output=True,
        text=True,
        check=False,
    )
    where = done.stdout.strip()
    if done.returncode != 0 or not Path(where).resolve().is_relative_to(Path(root).resolve()):
        raise SystemExit(
            f"the benchmark's children import jaxrewrite from {where or done.stderr!r}, "
            f"not from {root}"
        )
