"""jaxrewrite as users run it, for the import benchmarks: a wheel of this checkout, built and
installed (not editable) into a folder that goes first on the children's ``PYTHONPATH``.

Why not the checkout: an installed wheel carries its cache tag's digests (jaxrewrite/hook/digest.py),
so its first opted-in import checks no stat of jaxrewrite's sources, which a checkout, edited in
place, must (``--checkout`` measures that)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: What a build reads: the package and its metadata (a copy, so no build/ lands in the checkout).
_BUILD_INPUTS = ("jaxrewrite", "setup.py", "setup.cfg", "pyproject.toml", "README.md", "LICENSE", "MANIFEST.in")


def installed(folder: str) -> str:
    """Build a wheel of this checkout and install it under ``folder``; returns the folder to put
    on ``sys.path`` (its ``jaxrewrite`` compiled, as pip leaves an install)."""
    src, wheels, site = (os.path.join(folder, name) for name in ("src", "wheels", "site"))
    for name in _BUILD_INPUTS:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, os.path.join(src, name), ignore=shutil.ignore_patterns("__pycache__"))
        elif path.exists():
            shutil.copy2(path, os.path.join(src, name))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    pip = [sys.executable, "-m", "pip", "-q"]
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", wheels, src], env)
    _run([*pip, "install", "--no-deps", "--no-index", "--target", site, *map(str, Path(wheels).glob("*.whl"))], env)
    if not os.path.exists(os.path.join(site, "jaxrewrite", "hook", "built-digests")):
        raise SystemExit("the wheel carries no built-digests: setup.py's build step did not run")
    return site


def _run(argv: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"building or installing jaxrewrite's wheel failed: {argv}\n{done.stdout}\n{done.stderr}")
