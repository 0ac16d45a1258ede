"""``jaxrewrite compile``: the hook's cache written ahead of time, per file and optimisation level.

The proof that an import used the prebuilt cache is that the engine never loaded: the hook
imports ``jaxrewrite.engine.rewrite`` only on a cache miss. tests/hook/test_library.py does the same
for an installed wheel imported by an unprivileged user from a read-only tree.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import support
from support import child_env, jaxrewrite, python

from jaxrewrite import cli
from jaxrewrite.hook import cachetag

OK = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

TRACES = []


@jax.jit
def power(x, n: Static[int]):
    TRACES.append(n)
    return x ** len(range(n)) * SCALE


SCALE = 1.0
"""

PLAIN = "def helper():\n    return 1\n"

BAD = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static


@jax.jit
def f(x, *rest: Static[int]):
    return x
"""

#: Imports ``module`` through the hook and prints the result, the trace log and whether the engine
#: (the rewrite) was loaded: it is only imported on a cache miss.
PROBE = """\
import sys
import jaxrewrite
jaxrewrite.install()
import {module} as m
print(float(m.power(2.0, 3)), float(m.power(3.0, n=2)), m.TRACES)
print("engine" if "jaxrewrite.engine.rewrite" in sys.modules else "no engine")
print(type(m.__loader__).__name__)
"""


def jaxrewrite_compile(
    *args: str, cwd: Path, flags: tuple[str, ...] = (), **env: str
) -> subprocess.CompletedProcess[str]:
    return jaxrewrite("compile", *args, cwd=cwd, flags=flags, env=child_env(bytecode=True, **env))


def probe(module: str, cwd: Path, flags: tuple[str, ...] = (), **env: str) -> list[str]:
    done = python(
        "-c", PROBE.format(module=module), cwd=cwd, flags=flags, env=child_env(bytecode=True, **env)
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def write(path: Path, text: str) -> Path:
    return support.write(path, text, dedent=True)


def pyc(path: Path, level: int = 0) -> Path:
    found = cachetag.cache_path(str(path.resolve()), level)
    assert found is not None
    return Path(found)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/lib: an opted-in module, one below it, one without the pragma, a hidden folder."""
    lib = tmp_path / "lib"
    write(lib / "ok.py", OK)
    write(lib / "plain.py", PLAIN)
    write(lib / "sub" / "deep.py", OK)
    write(lib / ".hidden" / "ignored.py", OK)
    return lib


def test_writes_the_hook_cache_for_opted_in_files_only(tree: Path) -> None:
    done = jaxrewrite_compile("lib", cwd=tree.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "wrote    lib/ok.py (optimisation 0)",
        "skipped  lib/plain.py: no '# jaxrewrite: enable' in its header",
        "wrote    lib/sub/deep.py (optimisation 0)",
        "python -m jaxrewrite compile: 2 written, 1 skipped, 0 failed",
    ]
    assert pyc(tree / "ok.py").is_file() and pyc(tree / "sub" / "deep.py").is_file()
    assert not pyc(
        tree / "plain.py"
    ).exists()  # never cached by the hook either: Python's own pyc serves it
    assert not pyc(tree / ".hidden" / "ignored.py").exists()
    assert not pyc(tree / "ok.py", 1).exists()  # only the level asked for (the current one)


def test_failure_names_the_location_and_code_and_exits_1(tree: Path) -> None:
    write(tree / "bad.py", BAD)
    done = jaxrewrite_compile("lib", "-q", cwd=tree.parent)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "failed   lib/bad.py:7:11: JR101 Static cannot mark *args parameter 'rest': "
        "JAX can only treat named or positional parameters as static; write one parameter instead, "
        "'rest: Static[tuple[int, ...]]', and pass the values as one tuple"
    ]
    assert pyc(tree / "ok.py").is_file()  # the other files are still written
    assert not pyc(tree / "bad.py").exists()


def test_import_after_compile_uses_the_prebuilt_cache(tree: Path) -> None:
    assert jaxrewrite_compile("lib/ok.py", cwd=tree.parent).returncode == 0
    # PYTHONDONTWRITEBYTECODE: the import writes nothing, so what it found is what compile wrote.
    assert probe("ok", tree, PYTHONDONTWRITEBYTECODE="1") == [
        "8.0 9.0 [3, 2]",
        "no engine",
        "RewritingLoader",
    ]


def test_without_compile_the_import_rewrites(tree: Path) -> None:
    """The control: the same probe without a prebuilt cache (and none written) loads the engine."""
    assert probe("ok", tree, PYTHONDONTWRITEBYTECODE="1") == [
        "8.0 9.0 [3, 2]",
        "engine",
        "RewritingLoader",
    ]


def test_an_edit_after_compile_is_rewritten_fresh(tree: Path) -> None:
    assert jaxrewrite_compile("lib", cwd=tree.parent).returncode == 0
    ok = tree / "ok.py"
    ok.write_text(ok.read_text().replace("SCALE = 1.0", "SCALE = 10.0"))
    assert probe("ok", tree, PYTHONDONTWRITEBYTECODE="1") == [
        "80.0 90.0 [3, 2]",
        "engine",
        "RewritingLoader",
    ]


@pytest.mark.parametrize("flags", [(), ("-O",), ("-OO",)], ids=["O0", "O1", "O2"])
def test_every_level_asked_for_is_written_and_used(tree: Path, flags: tuple[str, ...]) -> None:
    done = jaxrewrite_compile("-O", "0,1", "--optimize", "2", "lib/ok.py", cwd=tree.parent)
    assert done.returncode == 0 and "wrote    lib/ok.py (optimisation 0, 1, 2)" in done.stdout
    assert all(pyc(tree / "ok.py", level).is_file() for level in (0, 1, 2))
    assert probe("ok", tree, flags, PYTHONDONTWRITEBYTECODE="1")[1] == "no engine"


def test_default_level_is_the_interpreters(tree: Path) -> None:
    done = jaxrewrite_compile("lib/ok.py", cwd=tree.parent, flags=("-OO",))
    assert done.returncode == 0 and "(optimisation 2)" in done.stdout
    assert pyc(tree / "ok.py", 2).is_file() and not pyc(tree / "ok.py", 0).exists()


def test_module_option_finds_packages_without_importing_them(tmp_path: Path) -> None:
    write(
        tmp_path / "pkg" / "__init__.py",
        'raise RuntimeError("compile must not import the package")\n',
    )
    write(tmp_path / "pkg" / "ops.py", OK)
    write(tmp_path / "pkg" / "inner" / "more.py", OK)
    done = jaxrewrite_compile("-m", "pkg", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "wrote    " in done.stdout and "2 written, 1 skipped, 0 failed" in done.stdout
    assert pyc(tmp_path / "pkg" / "inner" / "more.py").is_file()
    one = jaxrewrite_compile("-m", "pkg.ops", "-O", "1", cwd=tmp_path)
    assert one.returncode == 0 and "1 written, 0 skipped" in one.stdout


def test_unknown_targets_are_usage_errors(tmp_path: Path) -> None:
    write(tmp_path / "ok.py", OK)
    missing = jaxrewrite_compile("ok.py", "nowhere", "-m", "no_such_package_here", cwd=tmp_path)
    assert missing.returncode == 2
    assert "nowhere: no such file or folder" in missing.stderr
    assert "-m no_such_package_here: no such file or module" in missing.stderr
    assert "1 written" in missing.stdout  # what was found is still compiled
    nothing = jaxrewrite_compile(cwd=tmp_path)
    assert nothing.returncode == 2 and "give a PATH or -m PACKAGE" in nothing.stderr
    assert jaxrewrite_compile("-O", "3", "ok.py", cwd=tmp_path).returncode == 2


def test_writes_even_where_imports_may_not(tree: Path) -> None:
    """-B / PYTHONDONTWRITEBYTECODE govern what imports write; this command exists to write."""
    done = jaxrewrite_compile(
        "lib/ok.py", cwd=tree.parent, flags=("-B",), PYTHONDONTWRITEBYTECODE="1"
    )
    assert done.returncode == 0 and pyc(tree / "ok.py").is_file()


def test_a_cache_it_cannot_write_is_a_failure(tree: Path) -> None:
    done = jaxrewrite_compile(
        "lib/ok.py", cwd=tree.parent, PYTHONPYCACHEPREFIX=os.devnull + "/cache"
    )
    assert done.returncode == 1
    assert done.stdout.startswith("failed   lib/ok.py: cannot write ")


def test_in_process_through_the_command_table(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["compile", str(tree / "ok.py")], prog="jaxrewrite") == 0
    assert "jaxrewrite compile: 1 written, 0 skipped, 0 failed" in capsys.readouterr().out
    assert cli.main(["--help"], prog="jaxrewrite") == 0
    assert "compile PATH ..." in capsys.readouterr().out
    assert cli.main(["compile", "--help"], prog="jaxrewrite") == 0
    assert "-O LEVEL" in capsys.readouterr().out


def test_the_prebuilt_cache_carries_the_warnings_of_markers_that_do_nothing(tree: Path) -> None:
    """Issue 42.10: compile says what the import would (a Static under a decorator jaxrewrite does
    not know, JR004), and an import served from the prebuilt cache says it again, engine
    unloaded."""
    write(
        tree / "odd.py",
        OK
        + (
            "\n\ndef my_jit(f):\n    return jax.jit(f)\n\n\n@my_jit\n"
            "def unknown(x, n: Static[int]):\n    return x\n"
        ),
    )
    built = jaxrewrite_compile("lib/odd.py", cwd=tree.parent)
    assert built.returncode == 0 and "odd.py:21: RewriteWarning: JR004" in built.stderr, (
        built.stderr
    )
    done = python(
        "-c",
        PROBE.format(module="odd"),
        cwd=tree,
        env=child_env(bytecode=True, PYTHONDONTWRITEBYTECODE="1"),
    )
    assert done.returncode == 0 and done.stdout.splitlines()[1] == "no engine", done.stderr
    assert (
        done.stderr.count(
            "RewriteWarning: JR004 the marker on 'n' of 'unknown' does nothing under 'my_jit'"
        )
        == 1
    ), done.stderr
