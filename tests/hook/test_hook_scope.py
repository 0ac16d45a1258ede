"""Issue 51: the hook reads only the user's code, writes only the opted-in module's own cache, and
touches no class of Python's import system; one route from text to code (issue 52 item 5).

Each import runs in a child interpreter (hooks and bytecode caches are per process).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from helpers_hook import OPTED_IN, PLAIN_CALL, REWRITTEN_CALL, Project, report
from support import REPO, child_env, python, write

HOOK = REPO / "jaxrewrite" / "hook"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def _site_packages(root: Path) -> Path:
    """A fresh venv's site-packages: a folder of an interpreter's installation."""
    venv.EnvBuilder(with_pip=False).create(root)
    return sorted([*root.glob("lib/python*/site-packages"), *root.glob("Lib/site-packages")])[0]


def _venv_python(root: Path) -> str:
    return str(root / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))


# --- item 1: scope ----------------------------------------------------------------------------


def test_a_pragma_file_in_site_packages_is_imported_plain_and_the_warning_says_how_to_opt_in(
    project: Project,
) -> None:
    """No package named: a file of the installation is never read by the hook, so it runs as
    written, and NotRewrittenWarning names every way to name its package; named, it is rewritten."""
    site = _site_packages(project.root / "venv")
    write(site / "sitemod.py", OPTED_IN.format(value=1))
    code = (
        "import json, jaxrewrite, jax; jaxrewrite.install({}); import sitemod; "
        "print(json.dumps(jax.CALLS))"
    )
    env = project.env()
    # jaxrewrite's dependencies: every site folder this interpreter reads (a venv layered over
    # another, as CI's newest leg is, has them in both).
    sites = [p for p in sys.path if p.endswith("site-packages")] or [
        sysconfig.get_paths()["purelib"]
    ]
    env["PYTHONPATH"] += os.pathsep + os.pathsep.join(sites)
    plain = subprocess.run(
        [_venv_python(project.root / "venv"), "-c", code.format("")],
        env=env,
        capture_output=True,
        text=True,
    )
    assert report(plain) == [PLAIN_CALL]
    assert "NotRewrittenWarning: module 'sitemod' was not rewritten" in plain.stderr
    for way in (
        "jaxrewrite.install(packages=['sitemod'])",
        "python -m jaxrewrite --packages sitemod",
        "--jaxrewrite-packages=sitemod",
    ):
        assert way in plain.stderr, plain.stderr
    named = subprocess.run(
        [_venv_python(project.root / "venv"), "-c", code.format("['sitemod']")],
        env=env,
        capture_output=True,
        text=True,
    )
    assert report(named) == [REWRITTEN_CALL] and "NotRewrittenWarning" not in named.stderr
    runner = [
        _venv_python(project.root / "venv"),
        "-m",
        "jaxrewrite",
        "--packages",
        "sitemod",
        "-c",
        code.format(""),
    ]
    assert report(subprocess.run(runner, env=env, capture_output=True, text=True)) == [
        REWRITTEN_CALL
    ]


#: The child of the audit tests: every file jaxrewrite's hook opens (a frame of hook/ on the
#: stack) and every write of the process's own code, while the runner imports jax, numpy, the
#: standard library and one opted-in module.
AUDIT = """\
import json, os, sys
HOOK = {hook!r}
seen = {{"hook_opens": [], "writes": []}}
def audit(event, args):
    if event == "open":
        path, mode, flags = args
        frame = sys._getframe(1)  # the code that opened it: past importlib's own get_data
        while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
        if frame is not None and frame.f_code.co_filename.startswith(HOOK) and isinstance(path, str):
            seen["hook_opens"].append(path)
        if isinstance(path, str) and (("w" in str(mode)) or (flags or 0) & (os.O_WRONLY | os.O_RDWR)):
            seen["writes"].append(path)
    elif event in ("os.rename", "os.replace"):
        seen["writes"].append(str(args[1]))
    elif event == "os.mkdir":
        seen["writes"].append(str(args[0]))
sys.addaudithook(audit)
import jax, jax.numpy as jnp, numpy, json, email.parser, optedin
optedin.f(jnp.ones(2), 2)
print(json.dumps(seen))
"""  # noqa: E501


def _audit(tmp_path: Path) -> tuple[dict[str, list[str]], Path]:
    pytest.importorskip("jax")
    mod = write(tmp_path / "optedin.py", OPTED_IN.format(value=1))
    write(tmp_path / "main.py", AUDIT.format(hook=str(HOOK) + os.sep))
    proc = python(
        "-m", "jaxrewrite", "main.py", cwd=tmp_path, env=child_env(bytecode=True, path=[tmp_path])
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), mod


def _installation() -> list[str]:
    return sorted(
        {
            os.path.join(os.path.realpath(p), "")
            for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)
        }
    )


def test_the_hook_never_opens_a_file_of_jax_numpy_or_the_standard_library(tmp_path: Path) -> None:
    """Issue 51 item 1: under the runner the hook reads the user's files only (no index needed)."""
    seen, mod = _audit(tmp_path)
    inside = [
        p for p in seen["hook_opens"] if os.path.realpath(p).startswith(tuple(_installation()))
    ]
    assert inside == [], inside
    assert str(mod) in seen["hook_opens"]  # the audit does see the hook's reads


def test_nothing_is_written_in_the_installation_only_the_modules_own_pycache(
    tmp_path: Path,
) -> None:
    """Issue 51 item 6: the process's writes are its own pycs: the opted-in module's under its own
    ``__pycache__``; nothing under sys.prefix or sys.base_prefix that the hook made."""
    seen, mod = _audit(tmp_path)
    ours = [
        p for p in seen["writes"] if "opt-jaxrewrite" in p or "jaxrewrite-" in os.path.basename(p)
    ]
    assert ours and all(p.startswith(str(mod.parent / "__pycache__")) for p in ours), ours
    inside = [p for p in ours if os.path.realpath(p).startswith(tuple(_installation()))]
    assert inside == []


# --- item 2: one module a reader can hold ----------------------------------------------------


def test_the_hook_is_small_and_keeps_its_state_on_the_hook_object() -> None:
    """Issue 51 item 2: every module under hook/ (with the finder and loaders) at most 1,000
    lines, and none rebinds a module-level name at run time (no ``global``)."""
    files = sorted(HOOK.glob("*.py"))
    lines = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in files)
    assert lines <= 1000, lines
    rebinding = [
        f"{path.name}:{node.lineno}"
        for path in files
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Global)
    ]
    assert rebinding == []
    assert not (HOOK / "fast").exists() and not (HOOK / "index.py").exists()


# --- item 3 and issue 52 item 5: one route, non-ASCII names ----------------------------------

UNICODE = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static as Стат

ЗАПИСИ = []


@jax.jit
def умножить(x, множитель: Стат[int], *, ключ: Стат[str] = "é"):
    ЗАПИСИ.append((множитель, ключ))
    return x * множитель


def вызвать(x):
    return умножить(x, 3, ключ="ü")
"""

UNICODE_HAND = """\
import functools
import jax

ЗАПИСИ = []


@functools.partial(jax.jit, static_argnums=(1,), static_argnames=("множитель", "ключ"))
def умножить(x, множитель: int, *, ключ: str = "é"):
    ЗАПИСИ.append((множитель, ключ))
    return x * множитель


def вызвать(x):
    return умножить(x, 3, ключ="ü")
"""

UNICODE_CHILD = """\
import json, sys, jax.numpy as jnp, jaxrewrite
jaxrewrite.install()
import уникод as m, уникод_рука as h
out = []
for mod in (m, h):
    r = [mod.умножить(jnp.ones(2), 2).tolist(), mod.умножить(jnp.ones(2), 2, ключ="x").tolist(), mod.вызвать(jnp.ones(2)).tolist()]
    out.append([r, mod.ЗАПИСИ])
print(json.dumps({"same": out[0] == out[1], "out": out, "engine": "jaxrewrite.engine.rewrite" in sys.modules}))
"""  # noqa: E501


def test_non_ascii_names_in_every_position_import_rewritten_cold_and_warm(tmp_path: Path) -> None:
    """Issue 52 item 5: a Static parameter, the function, the marker alias and a keyword named in
    non-ASCII letters: imported and run rewritten, cold then warm through the cache, equal to the
    hand-written twin (results and traces); the one route's code equals the text's code."""
    pytest.importorskip("jax")
    write(tmp_path / "уникод.py", UNICODE)
    write(tmp_path / "уникод_рука.py", UNICODE_HAND)
    for warm in (False, True):
        proc = python(
            "-c", UNICODE_CHILD, cwd=tmp_path, env=child_env(bytecode=True, path=[tmp_path])
        )
        assert proc.returncode == 0, proc.stderr
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        assert got["same"] and got["engine"] is not warm, got
    from jaxrewrite import rewrite_source
    from jaxrewrite.hook.pycfile import compile_source

    path = str(tmp_path / "уникод.py")
    assert compile_source(UNICODE.encode(), path) == compile(
        rewrite_source(UNICODE, path), path, "exec", dont_inherit=True
    )


# --- item 5: no attribute of Python's import classes assigned -------------------------------

CLASSES_CHILD = """\
import importlib.machinery as m, importlib._bootstrap_external as e, importlib.abc, json, sys
classes = [m.SourceFileLoader, m.SourcelessFileLoader, m.FileFinder, m.PathFinder, e.FileLoader, e.SourceLoader,
           e._LoaderBasics, m.ModuleSpec, importlib.abc.Loader]
before = [dict(vars(c)) for c in classes]
import jaxrewrite
jaxrewrite.install(["pkgc"])
from typeguard import install_import_hook
install_import_hook(["pkgc"])
jaxrewrite.install(["pkgc"])  # in front again: composes with typeguard's loader
import pkgc.mod, plainmod
changed = [c.__qualname__ for c, d in zip(classes, before) if dict(vars(c)) != d]
print(json.dumps({"changed": changed, "loader": type(pkgc.mod.__loader__).__qualname__,
                  "traces": pkgc.mod.run()}))
"""  # noqa: E501


def test_no_attribute_of_pythons_import_classes_is_assigned(tmp_path: Path) -> None:
    """Issue 51 item 5: install, compose with another tool's loader and import: the import
    classes' ``__dict__`` are as they were; the other tool's loader is wrapped for the module."""
    pytest.importorskip("typeguard")
    pytest.importorskip("jax")
    write(tmp_path / "pkgc" / "__init__.py", "")
    write(
        tmp_path / "pkgc" / "mod.py",
        "# jaxrewrite: enable\nimport jax, jax.numpy as jnp\n"
        "from jaxrewrite import Static\nT = []\n\n\n"
        "@jax.jit\ndef f(x, n: Static[int]):\n    T.append(n)\n    return x * n\n\n\n"
        "def run():\n    f(jnp.ones(2), 2)\n    f(jnp.ones(2), 2)\n    return T\n",
    )
    write(tmp_path / "plainmod.py", "X = 1\n")
    proc = python("-c", CLASSES_CHILD, cwd=tmp_path, env=child_env(bytecode=True, path=[tmp_path]))
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == {
        "changed": [],
        "loader": "composed(typeguard._importhook.TypeguardLoader)",
        "traces": [2],
    }
    assert "FileLoader.get_data =" not in "".join(p.read_text() for p in HOOK.glob("*.py"))


# --- issue 54 item 2: the runner on undecodable bytes ---------------------------------------


@pytest.mark.parametrize("pragma", [True, False], ids=["opted-in", "plain"])
def test_the_runner_reports_bad_bytes_at_their_line_with_no_frame_of_its_own(
    tmp_path: Path, pragma: bool
) -> None:
    script = tmp_path / "bad.py"
    script.write_bytes((b"# jaxrewrite: enable\n" if pragma else b"") + b"x = 1\ns = '\xff'\n")
    proc = python("-m", "jaxrewrite", str(script), cwd=tmp_path, env=child_env(bytecode=True))
    line = 3 if pragma else 2
    assert proc.returncode == 1
    assert f'File "{script}", line {line}' in proc.stderr and "SyntaxError" in proc.stderr, (
        proc.stderr
    )
    assert "jaxrewrite" not in proc.stderr.replace("# jaxrewrite: enable", "")
    assert "UnicodeDecodeError" not in proc.stderr and "During handling" not in proc.stderr
