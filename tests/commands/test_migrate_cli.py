"""``jaxrewrite migrate``'s command line as black users expect it: ``--diff``, ``--check``, progress
on a terminal only, and what to do after ``--write`` (the hook; ``--install-hook`` for a
package)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from golden_cases import ROOT
from support import jaxrewrite, write

from jaxrewrite.commands.migrate import INSTALL_LINE, migrate, with_install_line

HAND = """\
from functools import partial

import jax


@partial(jax.jit, static_argnums=(1,))
def f(x, n):
    return x * n
"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return jaxrewrite("migrate", *args, cwd=cwd)


def test_diff_is_the_default_and_check_is_the_status_alone(tmp_path: Path) -> None:
    write(tmp_path / "m.py", HAND)
    write(tmp_path / "plain.py", "x = 1\n")
    default, diff = run("m.py", cwd=tmp_path), run("--diff", "m.py", cwd=tmp_path)
    assert default.returncode == diff.returncode == 1 and default.stdout == diff.stdout != ""
    check = run("--check", "m.py", cwd=tmp_path)
    assert (check.returncode, check.stdout, check.stderr) == (
        1,
        "",
        "",
    )  # black --check -q: the status only
    clean = run("--check", "plain.py", cwd=tmp_path)
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "", "")
    assert (tmp_path / "m.py").read_text() == HAND  # neither writes
    missing = run("--check", "nowhere.py", cwd=tmp_path)
    assert missing.returncode == 2 and "nowhere.py" in missing.stderr
    both = run("--diff", "--write", "m.py", cwd=tmp_path)
    assert both.returncode == 2 and "not allowed with" in both.stderr


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_only(tmp_path: Path, monkeypatch: object) -> None:
    for index in range(3):
        write(tmp_path / f"m{index}.py", HAND)
    on_tty, piped = Terminal(), io.StringIO()
    out = io.StringIO()
    assert migrate([str(tmp_path)], False, out, on_tty, progress_after=0.0) == 1
    assert "\rmigrate: 1/3 files" in on_tty.getvalue()
    # Erased before each message and at the end: the summary line starts a clean line.
    assert "\r" + " " * 10 in on_tty.getvalue() and on_tty.getvalue().splitlines()[-1].startswith(
        "3 functions"
    )
    assert migrate([str(tmp_path)], False, io.StringIO(), piped, progress_after=0.0) == 1
    assert "\r" not in piped.getvalue() and "migrate: " not in piped.getvalue()
    quick = Terminal()  # a short run shows nothing
    migrate([str(tmp_path)], False, io.StringIO(), quick, progress_after=60.0)
    assert "\r" not in quick.getvalue()


def test_after_write_a_script_is_told_it_needs_the_hook(tmp_path: Path) -> None:
    write(tmp_path / "legacy.py", HAND + "\nprint(f(jax.numpy.ones(2), 3))\n")
    done = run("--write", "legacy.py", cwd=tmp_path)
    assert done.returncode == 1
    assert "now need the jaxrewrite import hook" in done.stderr
    assert (
        "`python -m jaxrewrite script.py`" in done.stderr
        and "`jaxrewrite.install()`" in done.stderr
    )
    assert "ConcretizationTypeError" in done.stderr and "is a library" not in done.stderr
    assert (
        "now need" not in run("legacy.py", cwd=tmp_path).stderr
    )  # nothing was written: nothing to say


def test_a_package_is_told_what_a_library_needs_and_install_hook_writes_it(tmp_path: Path) -> None:
    write(
        tmp_path / "mylib" / "__init__.py",
        '"""My library."""\nfrom __future__ import annotations\n\nfrom mylib.ops import f\n',
    )
    write(tmp_path / "mylib" / "ops.py", HAND)
    told = run("--write", "mylib", cwd=tmp_path)
    assert told.returncode == 1
    assert (
        f"`{INSTALL_LINE}`" in told.stderr and os.path.join("mylib", "__init__.py") in told.stderr
    )
    assert (
        "jaxrewrite to its dependencies" in told.stderr
        and "--jaxrewrite-packages=mylib" in told.stderr
    )
    assert "--install-hook writes them" in told.stderr
    assert "install(" not in (tmp_path / "mylib" / "__init__.py").read_text()  # only offered
    # migrate again on the written files is a no-op; --install-hook needs --write
    assert run("--install-hook", "mylib", cwd=tmp_path).returncode == 2
    write(tmp_path / "mylib" / "ops.py", HAND)
    done = run("--write", "--install-hook", "mylib", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    init = (tmp_path / "mylib" / "__init__.py").read_text()
    assert init == (
        '"""My library."""\nfrom __future__ import annotations\n\nimport jaxrewrite\n'
        f"{INSTALL_LINE}  # Static/NoDiff in this package need the hook\n\n"
        "from mylib.ops import f\n"
    )
    assert f"added `{INSTALL_LINE}`" in done.stderr
    # The library now works for an importer that installs no hook: n is static, not traced.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    used = subprocess.run(
        [
            sys.executable,
            "-c",
            "import jax.numpy as jnp, mylib; print(mylib.f(jnp.ones(2), 3).tolist())",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (used.returncode, used.stdout) == (0, "[3.0, 3.0]\n"), used.stderr
    write(tmp_path / "mylib" / "ops.py", HAND)
    again = run("--write", "--install-hook", "mylib", cwd=tmp_path)  # never twice
    assert (
        tmp_path / "mylib" / "__init__.py"
    ).read_text() == init and "installs the hook" in again.stderr


def test_install_line_placement() -> None:
    assert (
        with_install_line("")
        == f"import jaxrewrite\n{INSTALL_LINE}  # Static/NoDiff in this package need the hook\n"
    )
    assert with_install_line("from . import a\n").endswith("need the hook\n\nfrom . import a\n")
    crlf = with_install_line('"""Doc."""\r\nx = 1\r\n')
    assert crlf.startswith('"""Doc."""\r\n\r\nimport jaxrewrite\r\n') and "\n" not in crlf.replace(
        "\r\n", ""
    )
    assert with_install_line('"""Doc."""').startswith('"""Doc."""\n\nimport jaxrewrite\n')


def test_migrate_quiet_and_a_folder_without_python_files(tmp_path: Path) -> None:
    """``-q`` leaves stderr to errors; a folder with no Python file is said, as check says it."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.txt").write_text("partial(jax.jit, static_argnums=(1,))\n")
    empty = jaxrewrite("migrate", "docs", cwd=tmp_path)
    assert empty.returncode == 0
    assert empty.stderr.startswith("warning: No Python files found under the given path(s)\n"), (
        empty.stderr
    )
    (tmp_path / "m.py").write_text(
        "import jax\nfrom functools import partial\n\n\n"
        "@partial(jax.jit, static_argnums=(1,))\ndef g(x, n):\n    return x * n\n\n\n"
        "@partial(jax.jit, static_argnums=(1,), donate_argnums=(1,))\ndef h(x, n):\n    return x\n"
    )
    loud = jaxrewrite("migrate", "m.py", cwd=tmp_path)
    quiet = jaxrewrite("migrate", "-q", "m.py", cwd=tmp_path)
    assert loud.returncode == quiet.returncode == 1 and loud.stdout == quiet.stdout != ""
    assert "1 function to migrate" in loud.stderr and quiet.stderr == "", quiet.stderr
    written = jaxrewrite("migrate", "-q", "--write", "m.py", cwd=tmp_path)
    assert (written.returncode, written.stdout, written.stderr) == (1, "", "")
    assert "n: Static" in (tmp_path / "m.py").read_text()
