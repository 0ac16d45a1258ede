"""What the tests that start processes share: a child's environment, running it, writing its files.

One place, so that every child sees this checkout first on ``PYTHONPATH`` the same way, and a test
says only what differs (bytecode allowed, a variable removed or set, standard input).
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prewarmed import Prewarmed

REPO = Path(__file__).resolve().parents[1]
#: The session's prewarmed server while a test of a file in conftest's ``FORKING`` runs.
SERVER: Prewarmed | None = None


def server() -> Prewarmed:
    """The prewarmed server (tests/prewarmed.py) of the running test, for the files in
    conftest's ``FORKING``: their runs without interpreter options start as its forks."""
    assert SERVER is not None, "only the files in conftest's FORKING have a server"
    return SERVER


#: What keeps a child from writing bytecode (set on this machine): removed where a test needs pycs.
NO_BYTECODE = ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")


def child_env(
    *,
    bytecode: bool = False,
    drop: Iterable[str] = (),
    path: Iterable[str | Path] = (),
    **extra: str,
) -> dict[str, str]:
    """``os.environ`` with ``path`` then this checkout first on ``PYTHONPATH`` (the caller's after),
    ``PYTHONSAFEPATH`` off (a script's folder importable, as for users); ``bytecode``: the variables
    that stop bytecode removed; ``drop``: other variables removed; ``extra``: set."""
    env = {k: v for k, v in os.environ.items() if k not in (*drop, "PYTHONSAFEPATH")}
    if bytecode:
        for name in NO_BYTECODE:
            env.pop(name, None)
    env["PYTHONPATH"] = os.pathsep.join(
        [*map(str, path), str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    env.update(extra)
    return env


def python(
    *args: str,
    cwd: Path,
    flags: Iterable[str] = (),
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 300,
    prewarmed: Prewarmed | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python [flags] args...`` in ``cwd``, its output captured as text; with ``prewarmed``, and
    no flags or input, in a fork of an interpreter that has imported jax (tests/prewarmed.py)."""
    if prewarmed is not None and not flags and stdin is None:
        return prewarmed.run(list(args), cwd, timeout, child_env() if env is None else env)
    return subprocess.run(
        [sys.executable, *flags, *args],
        cwd=cwd,
        env=child_env() if env is None else env,
        capture_output=True,
        text=True,
        input=stdin,
        timeout=timeout,
    )


def jaxrewrite(*args: str, cwd: Path, **options: object) -> subprocess.CompletedProcess[str]:
    """``python -m jaxrewrite args...``, as :func:`python` runs it."""
    return python("-m", "jaxrewrite", *args, cwd=cwd, **options)  # type: ignore[arg-type]


#: The tools a CI leg installs and so requires (``.ci/run``): comma-separated names, each a
#: failure when missing instead of a skip. The README's command needs none of them.
REQUIRED = {
    name.strip()
    for name in os.environ.get("JAXREWRITE_TEST_REQUIRE", "").split(",")
    if name.strip()
}


def missing(what: str, install: str) -> None:
    """Skip: ``what`` is not installed (``install`` says how); a failure where a CI leg requires
    it."""
    import pytest

    if what in REQUIRED:
        pytest.fail(
            f"{what} is missing, and JAXREWRITE_TEST_REQUIRE requires it (.ci/run "
            f"installs it: {install})"
        )
    pytest.skip(
        f"{what} is not installed ({install}); JAXREWRITE_TEST_REQUIRE={what} makes this a failure"
    )


def child_venv(
    venv: Path,
    *,
    python: str = sys.executable,
    reuse: bool = True,
    env: dict[str, str] | None = None,
) -> Path:
    """A venv at ``venv`` (no pip: the caller's pip installs into it with ``--python``); its
    Python. ``reuse``: it sees the packages this interpreter sees. ``--system-site-packages``
    alone reaches the *base* interpreter's, so where this one is itself a venv (the README's
    command run from one) its own site-packages are added by a ``.pth`` (a conda-like env or a
    plain interpreter is its own base: nothing to add). The paths are added as they are, their
    ``.pth`` files unread, so an editable install of this checkout never shadows a wheel."""
    flags = ["--without-pip", *(["--system-site-packages"] if reuse else [])]
    subprocess.run(
        [python, "-m", "venv", *flags, str(venv)],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    vpython = venv / "bin" / "python"
    if reuse and python == sys.executable and sys.prefix != sys.base_prefix:
        # Every site folder this interpreter reads that is not the base's: its own, and any a
        # ``.pth`` added (a venv layered over another, as .ci/run's newest leg is), in order.
        base = Path(sys.base_prefix).resolve()
        ours = [
            p
            for p in sys.path
            if Path(p).name in ("site-packages", "dist-packages")
            and not Path(p).resolve().is_relative_to(base)
        ]
        version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        (venv / "lib" / version / "site-packages" / "_jaxrewrite_tests_outer_env.pth").write_text(
            "".join(f"{p}\n" for p in ours)
        )
    return vpython


def write(path: Path, text: str, *, dedent: bool = False) -> Path:
    """``text`` (dedented if asked) at ``path``, its folders made, as UTF-8."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text) if dedent else text, encoding="utf-8")
    return path


def can_build_without_isolation() -> bool:
    """Whether this environment meets pyproject's build requirements (setuptools>=64 and a
    bdist_wheel: setuptools' own from 70.1, else the wheel package), so no index is needed."""
    try:
        version = tuple(
            int(part) for part in importlib.metadata.version("setuptools").split(".")[:2]
        )
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False
    if version >= (70, 1):
        return True
    try:
        importlib.metadata.version("wheel")
    except importlib.metadata.PackageNotFoundError:
        return False
    return version >= (64, 0)
