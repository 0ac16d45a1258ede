"""NotRewrittenWarning, in interpreters of their own: un-rewritten modules that needed the rewrite
say so, once, with the fix for their case; rewritten and alias-only modules stay quiet."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import support
from support import child_env

ROOT = Path(__file__).resolve().parents[2]

BODY = """\
import jax
from jaxrewrite import Static


@jax.jit
def scale(x, n: Static[int]):
    return x * len(range(n))
"""
OPTED_IN = "# jaxrewrite: enable\n" + BODY
NAME = "NotRewrittenWarning: module"


def python(*args: str, cwd: Path, bytecode: bool = False) -> subprocess.CompletedProcess[str]:
    env = child_env(bytecode=bytecode, path=[cwd], JAX_PLATFORMS="cpu")
    return support.python(*args, cwd=cwd, env=env, prewarmed=support.server())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "nopragma.py").write_text(BODY)
    (tmp_path / "optedin.py").write_text(OPTED_IN)
    (tmp_path / "late.py").write_text('"""doc"""\nimport os\n# jaxrewrite: enable\n' + BODY)
    return tmp_path


def test_missing_pragma(project: Path) -> None:
    done = python("-c", "import nopragma", cwd=project)
    assert done.returncode == 0
    assert done.stderr.count(NAME) == 1
    assert "nopragma.py:6: NotRewrittenWarning: module 'nopragma' was not rewritten" in done.stderr
    assert "'scale' (line 6)" in done.stderr and "add '# jaxrewrite: enable'" in done.stderr


@pytest.mark.parametrize(
    "spelling",
    [
        "from jaxrewrite.markers import Static",
        "from jaxrewrite.markers import Static as S",
        "from jaxrewrite.markers import STATIC",
        "import jaxrewrite.markers as m",
        "from jaxrewrite import markers",
    ],
)
def test_markers_taken_from_jaxrewrite_markers_warn_too(project: Path, spelling: str) -> None:
    """``jaxrewrite.markers`` serves its markers as the package does: a module that takes them
    from there, by any spelling, and ran unrewritten says so (it used to say nothing)."""
    marker = {
        "from jaxrewrite.markers import Static": "Static[int]",
        "from jaxrewrite.markers import Static as S": "S[int]",
        "from jaxrewrite.markers import STATIC": "Annotated[int, STATIC]",
        "import jaxrewrite.markers as m": "m.Static[int]",
        "from jaxrewrite import markers": "markers.Static[int]",
    }[spelling]
    (project / "viamarkers.py").write_text(
        f"from typing import Annotated\n\nimport jax\n{spelling}\n\n\n"
        f"@jax.jit\ndef scale(x, n: {marker}):\n    return x * len(range(n))\n"
    )
    done = python("-c", "import viamarkers", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(NAME) == 1, done.stderr
    assert (
        "viamarkers.py:8: NotRewrittenWarning: module 'viamarkers' was not rewritten" in done.stderr
    )
    assert "add '# jaxrewrite: enable'" in done.stderr
    (project / "viamarkers.py").write_text(
        "# jaxrewrite: enable\n" + (project / "viamarkers.py").read_text()
    )
    rewritten = python(
        "-c", "import jaxrewrite; jaxrewrite.install(); import viamarkers", cwd=project
    )
    assert (rewritten.returncode, rewritten.stderr) == (0, "")


def test_a_static_field_alone_is_reported_too(project: Path) -> None:
    """An Equinox Module whose only rewrite is a Static field: without the rewrite the field is a
    traced leaf, so the warning names it (it used to say nothing)."""
    pytest.importorskip("equinox")
    (project / "fieldonly.py").write_text(
        "import equinox as eqx\nfrom jaxrewrite import Static\n\n\n"
        "class Model(eqx.Module):\n    depth: Static[int] = 2\n"
    )
    done = python("-c", "import fieldonly", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(NAME) == 1
    assert (
        "fieldonly.py:6: NotRewrittenWarning: module 'fieldonly' was not rewritten" in done.stderr
    )
    assert "the Static field 'depth' (line 6) is a pytree leaf" in done.stderr


def test_pragma_below_the_header(project: Path) -> None:
    done = python("-c", "import late", cwd=project)
    assert "the one on line 3 does not count" in done.stderr


def test_no_hook_installed(project: Path) -> None:
    done = python("-c", "import optedin", cwd=project)
    assert done.stderr.count(NAME) == 1 and "no import hook is installed" in done.stderr


def test_imported_before_install_or_outside_its_packages(project: Path) -> None:
    before = python("-c", "import optedin, jaxrewrite; jaxrewrite.install()", cwd=project)
    assert (
        before.stderr.count(NAME) == 1
        and "call jaxrewrite.install() before importing it" in before.stderr
    )
    installed = python(
        "-c",
        "import jaxrewrite; h = jaxrewrite.install(); h.uninstall(); import optedin; h2 = "
        "jaxrewrite.install()",
        cwd=project,
    )
    assert installed.stderr.count(NAME) == 1 and "no import hook is installed" in installed.stderr
    # The user's own file is rewritten whatever packages are named: naming one only adds it.
    named = python(
        "-c",
        "import jaxrewrite; jaxrewrite.install(packages=['other']); import optedin",
        cwd=project,
    )
    assert NAME not in named.stderr, named.stderr


def test_main_script_run_by_plain_python(project: Path) -> None:
    done = python("optedin.py", cwd=project)
    assert "module '__main__' was not rewritten" in done.stderr
    assert "python -m jaxrewrite" in done.stderr


@pytest.mark.parametrize("bytecode", [False, True], ids=["no-cache", "cache"])
def test_rewritten_modules_are_quiet(project: Path, bytecode: bool) -> None:
    code = (
        "import jaxrewrite; jaxrewrite.install(); import optedin; assert "
        "float(optedin.scale(1.0, 3)) == 3.0"
    )
    for _ in range(2):  # the second run loads the rewritten code from the cache when bytecode is on
        done = python("-c", code, cwd=project, bytecode=bytecode)
        assert (done.returncode, done.stderr) == (0, "")
    ran = python("-m", "jaxrewrite", "optedin.py", cwd=project)
    assert (ran.returncode, ran.stderr) == (0, "")


def test_aliases_and_is_static_are_quiet(tmp_path: Path) -> None:
    (tmp_path / "aliases.py").write_text(
        "import jaxrewrite\nfrom jaxrewrite import NoDiff, Static\n\nS = Static[int]\n\n\n"
        "def helper(x, n: S):\n    return x\n\n\nassert jaxrewrite.is_static(helper, 'n')\n"
    )
    done = python("-c", "import aliases", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")


def test_error_filter_makes_it_fatal(project: Path) -> None:
    """Python reads -W before site-packages can be imported and drops the option (it says so on
    stderr); importing jaxrewrite applies it again, so the documented command works."""
    done = python(
        "-W", "error::jaxrewrite.NotRewrittenWarning", "-c", "import nopragma", cwd=project
    )
    assert done.returncode == 1
    assert (
        "jaxrewrite.errors.NotRewrittenWarning: module 'nopragma' was not rewritten" in done.stderr
    )
    ignored = python(
        "-W", "ignore::jaxrewrite.RewriteWarning", "-c", "import nopragma", cwd=project
    )
    assert ignored.returncode == 0 and NAME not in ignored.stderr
    in_code = python(
        "-c",
        "import warnings, jaxrewrite; warnings.simplefilter('error', "
        "jaxrewrite.NotRewrittenWarning); import nopragma",
        cwd=project,
    )
    assert in_code.returncode == 1 and "NotRewrittenWarning" in in_code.stderr


def test_a_module_is_read_once(project: Path) -> None:
    code = "import nopragma, importlib; importlib.reload(nopragma); from jaxrewrite import NoDiff"
    done = python("-W", "always", "-c", code, cwd=project)
    assert done.stderr.count(NAME) == 1


def test_libraries_that_never_fetch_a_marker_are_never_read(project: Path) -> None:
    code = (
        "import jax, jax.numpy, jaxrewrite; jaxrewrite.install(); import optedin\n"
        "from jaxrewrite import notrewritten\n"
        "assert not notrewritten.CHECKED, notrewritten.CHECKED\n"
    )
    done = python("-c", code, cwd=project)
    assert (done.returncode, done.stderr) == (0, "")


SNIPPET = (
    "import jax\nfrom jaxrewrite import Static\n\n\n@jax.jit\ndef f(x, n: Static[int]):\n"
    "    return x * n\n"
)


def test_code_without_a_file_is_warned_about_where_python_lets_it_be_seen(tmp_path: Path) -> None:
    """``python -c`` (its text is in ``sys.orig_argv``: analyzed, warned at the def's line),
    standard input and ``exec(compile(text, "snippet.py", "exec"))`` (no text anywhere: a warning
    that says so); a ``-c`` whose markers lose nothing stays quiet."""

    def python(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return support.python(*args, cwd=cwd, stdin=stdin, prewarmed=support.server())

    given = python("-c", SNIPPET, cwd=tmp_path)
    assert "<string>:6: NotRewrittenWarning: module '__main__' was not rewritten" in given.stderr, (
        given.stderr
    )
    assert "code given with 'python -c' is never rewritten" in given.stderr
    read = python("-", cwd=tmp_path, stdin=SNIPPET)
    assert (
        "<stdin>:2: NotRewrittenWarning: code read from standard input fetched a marker"
        in read.stderr
    ), read.stderr
    compiled = python(
        "-c",
        f"exec(compile({SNIPPET!r}, 'snippet.py', 'exec'), {{'__name__': 'snip'}})",
        cwd=tmp_path,
    )
    assert (
        "snippet.py:2: NotRewrittenWarning: code compiled as 'snippet.py' (not from a file)"
        in compiled.stderr
    ), compiled.stderr
    quiet = python("-c", "from jaxrewrite import Static\nprint(Static)", cwd=tmp_path)
    assert quiet.returncode == 0 and "NotRewrittenWarning" not in quiet.stderr, quiet.stderr
