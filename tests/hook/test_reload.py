"""Reloading an opted-in module: ``importlib.reload`` under jaxrewrite's hook alone and beside each
foreign import hook (jaxtyping, beartype.claw, typeguard, installed before or after it), and
IPython's ``%autoreload`` in a real shell.

Each run is a child process with the real jax and bytecode on (caches are per process and on
disk): the opted-in module and the same module written by hand in plain JAX are imported, called,
edited and reloaded side by side; results and trace counts must agree, and the edit must run.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from prewarmed import Prewarmed
from support import child_env, python, write

#: ``{mul}`` is edited in place (one character: a same-size edit, in the same second).
MODULE = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

TRACES = []


@jax.jit
def f(x, n: Static[int]):
    TRACES.append(n)
    for _ in range(n):  # n drives Python control flow: it must be static
        x = x * {mul}
    return x


def checked(x: int) -> int:
    return x
"""

#: The same module written by hand in plain JAX.
HAND = """\
import functools
import jax

TRACES = []


@functools.partial(jax.jit, static_argnames="n")
def f(x, n: int):
    TRACES.append(n)
    for _ in range(n):
        x = x * {mul}
    return x
"""

#: How each foreign tool is installed for the package ``pkgr``.
INSTALL = {
    "none": "",
    "jaxtyping": "import jaxtyping; jaxtyping.install_import_hook('pkgr', 'beartype.beartype')",
    "beartype": "from beartype.claw import beartype_package; beartype_package('pkgr')",
    "typeguard": "from typeguard import install_import_hook; install_import_hook(['pkgr'])",
}

CHILD = """\
import importlib, json, os, pathlib, sys
import jax.numpy as jnp
import jaxrewrite
tool, order, edit = sys.argv[1], sys.argv[2], sys.argv[3]
if order == "first":
    jaxrewrite.install(["pkgr"])
exec(INSTALL[tool])
if order == "last":
    jaxrewrite.install(["pkgr"])
import pkgr.mod as mod, pkgr.hand as hand
if order == "before":  # imported before the hook: the reload is the first rewritten load
    jaxrewrite.install(["pkgr"])


def calls(module):
    try:
        return [module.f(jnp.ones(2), n).tolist() for n in (2, 2, 3)] + [list(module.TRACES)]
    except Exception as exc:
        return type(exc).__name__


def reload(module, later=False):
    path = pathlib.Path(module.__file__)
    before = path.stat()
    path.write_text(path.read_text().replace(*EDITS[edit]))
    if later:  # Python's own pyc is keyed by mtime in seconds and size: a save a second later
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 2_000_000_000))
    try:
        return importlib.reload(module), None
    except Exception as exc:
        return module, str(exc)


first = calls(mod), calls(hand)
mod, error = reload(mod, later=True)
if edit == "mul":
    hand, _ = reload(hand, later=True)
try:
    mod.checked("not an int")
    check = None
except Exception as exc:
    check = type(exc).__name__
print(json.dumps({"first": first, "reloaded": [calls(mod), calls(hand)], "error": error,
                  "loader": type(mod.__loader__).__name__, "check": check}))
"""

#: The edits a child makes before reloading: the same size in the same second, a refusal, no pragma.
EDITS = {
    "mul": ("x * 2", "x * 5"),
    "refused": ("def f(x, n:", "def f(x, *n:"),
    "unmarked": ("# jaxrewrite: enable", "# jaxrewrite- enable"),
}

#: x = ones(2) doubled n times for n = 2, 2, 3 (then times 5), and one trace per value of n.
DOUBLED = [[4.0, 4.0], [4.0, 4.0], [8.0, 8.0], [2, 3]]
FIVEFOLD = [[25.0, 25.0], [25.0, 25.0], [125.0, 125.0], [2, 3]]
LOADERS = {
    "none": "RewritingLoader",
    "jaxtyping": "_JaxtypingLoader",
    "beartype": "BeartypeSourceFileLoader",
    "typeguard": "TypeguardLoader",
}
CHECK_ERRORS: dict[str, set[str | None]] = {
    "none": {None},
    "jaxtyping": {"TypeCheckError"},
    "beartype": {"BeartypeCallHintParamViolation"},
    "typeguard": {"TypeCheckError"},
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "pkgr" / "__init__.py", "")
    write(tmp_path / "pkgr" / "mod.py", MODULE.format(mul=2))
    write(tmp_path / "pkgr" / "hand.py", HAND.format(mul=2))
    return tmp_path


def reload_in_child(
    root: Path, prewarmed: Prewarmed, tool: str, order: str, edit: str = "mul"
) -> dict[str, Any]:
    proc = python(
        "-c",
        f"INSTALL = {INSTALL!r}\nEDITS = {EDITS!r}\n" + CHILD,
        tool,
        order,
        edit,
        cwd=root,
        env=child_env(bytecode=True, path=[root]),
        prewarmed=prewarmed,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def foreign_tools() -> list[str]:
    for name in ("jaxtyping", "beartype", "typeguard"):
        pytest.importorskip(name)
    return ["jaxtyping", "beartype", "typeguard"]


@pytest.mark.parametrize(
    ("tool", "order"),
    [("none", "first"), ("beartype", "first")]
    + [(tool, "last") for tool in ("jaxtyping", "beartype", "typeguard")],
)
def test_reload_rewrites_the_edited_source_again(
    project: Path, prewarmed: Prewarmed, tool: str, order: str
) -> None:
    """The reload compiles the rewrite of the file as it is now (a same-size edit saved later:
    the pycs are checked by mtime and size, as Python checks its own), statics applied as by
    hand; a foreign tool's checks still run. Twice: the second run finds the pycs the first
    wrote, of other bytes. (jaxtyping's and typeguard's finders installed after jaxrewrite's
    stand in front of it: tests/hook/test_compose_hooks.py says what happens then.)"""
    if tool != "none":
        foreign_tools()
    for back in (100, 200):
        mod = write(project / "pkgr" / "mod.py", MODULE.format(mul=2))
        hand = write(project / "pkgr" / "hand.py", HAND.format(mul=2))
        for path in (mod, hand):  # a second of its own for each pyc (the edit saves 2 s later)
            os.utime(path, (time.time() - back, time.time() - back))
        got = reload_in_child(project, prewarmed, tool, order)
        assert got["first"] == [DOUBLED, DOUBLED]
        assert got["reloaded"] == [FIVEFOLD, FIVEFOLD] and got["error"] is None
        assert got["loader"] == LOADERS[tool] and got["check"] in CHECK_ERRORS[tool]


def test_a_module_imported_before_the_hook_is_rewritten_when_reloaded(
    project: Path, prewarmed: Prewarmed
) -> None:
    got = reload_in_child(project, prewarmed, "none", "before")
    assert got["first"][0] == "TracerIntegerConversionError"  # unrewritten: n is traced
    assert got["reloaded"] == [FIVEFOLD, FIVEFOLD] and got["loader"] == "RewritingLoader"


@pytest.mark.parametrize("tool", ["none", "jaxtyping", "beartype", "typeguard"])
def test_a_refused_edit_fails_the_reload_at_its_line_and_keeps_the_module(
    project: Path, prewarmed: Prewarmed, tool: str
) -> None:
    if tool != "none":
        foreign_tools()
    got = reload_in_child(project, prewarmed, tool, "last", "refused")
    assert got["error"].startswith(
        f"{project / 'pkgr' / 'mod.py'}:9:11: JR101 Static cannot mark *args parameter 'n'"
    ), got["error"]
    assert got["reloaded"][0] == DOUBLED  # the module as it was: its functions still run


@pytest.mark.parametrize("tool", ["none", "typeguard"])
def test_an_edit_that_opts_out_runs_as_written(
    project: Path, prewarmed: Prewarmed, tool: str
) -> None:
    """No cached rewrite survives the pragma's removal: the reloaded module is plain, n traced."""
    if tool != "none":
        foreign_tools()
    got = reload_in_child(project, prewarmed, tool, "last", "unmarked")
    # Traced, n fails range(); typeguard refuses the tracer as an int before the body runs.
    assert got["reloaded"][0] == (
        "TypeCheckError" if tool == "typeguard" else "TracerIntegerConversionError"
    )


# --- IPython's %autoreload --------------------------------------------------------------------

SHELL = """\
import json, os, pathlib, sys
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config

config = Config()
config.HistoryManager.hist_file = ":memory:"
shell = InteractiveShell.instance(config=config)


def run(cell):
    result = shell.run_cell(cell, store_history=True)
    assert result.success, (result.error_before_exec, result.error_in_exec)
    return result.result


extensions = {"jaxrewrite": "%load_ext jaxrewrite", "autoreload": "%load_ext autoreload\\n" + sys.argv[2]}
for name in sys.argv[1].split(","):
    run(extensions[name])
run("import jax.numpy as jnp\\nimport pkgr.mod as mod, pkgr.hand as hand" + sys.argv[3])
run("from pkgr.mod import f as kept\\nfrom pkgr.hand import f as kept_hand")


def calls():
    return run("[[m.f(jnp.ones(2), n).tolist() for n in (2, 2, 3)] + [list(m.TRACES)] for m in (mod, hand)]")


def edit(old, new, names=("mod", "hand")):
    for name in names:
        path = pathlib.Path("pkgr", name + ".py")
        before = path.stat()
        path.write_text(path.read_text().replace(old, new))
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 2_000_000_000))  # a later save


out = {"first": calls()}
edit("x * 2", "x * 5")
out["edited"] = calls()
out["kept"] = run("[kept(jnp.ones(2), 2).tolist(), kept_hand(jnp.ones(2), 2).tolist()]")
edit("def f(x, n:", "def f(x, *n:", ["mod"])  # refused: autoreload reports it, the module stays as it was
out["refused"] = calls()
print("RESULT " + json.dumps(out))
"""  # noqa: E501


@pytest.mark.parametrize(
    ("order", "magic", "aimport"),
    [
        ("jaxrewrite,autoreload", "%autoreload 2", ""),
        ("autoreload,jaxrewrite", "%autoreload 2", ""),
        ("jaxrewrite,autoreload", "%autoreload 1", "\n%aimport pkgr.mod, pkgr.hand"),
    ],
)
def test_autoreload_runs_the_edited_module_rewritten(
    project: Path, prewarmed: Prewarmed, order: str, magic: str, aimport: str
) -> None:
    """A real IPython shell: after the file is saved anew, the next cell runs its new rewritten code
    (statics applied, one trace per value of n), as the plain-JAX module beside it does; a refused
    edit is reported by autoreload with its file, line and code, and the old code runs on."""
    pytest.importorskip("IPython")
    proc = python(
        "-c",
        SHELL,
        order,
        magic,
        aimport,
        cwd=project,
        env=child_env(bytecode=True, path=[project]),
        prewarmed=prewarmed,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = json.loads(proc.stdout.split("RESULT ", 1)[1])
    assert got["first"] == [DOUBLED, DOUBLED]
    assert got["edited"] == [FIVEFOLD, FIVEFOLD]
    # A name imported from the module keeps the jitted object it was bound to, as by hand
    # (autoreload updates plain functions and classes in place, not jax's jit wrappers).
    assert got["kept"][0] == got["kept"][1]
    assert got["refused"] == [FIVEFOLD, FIVEFOLD]
    said = proc.stdout + proc.stderr
    assert "[autoreload of pkgr.mod failed" in said, said
    assert (
        f"{project / 'pkgr' / 'mod.py'}:9:11: JR101 Static cannot mark *args parameter 'n'" in said
        or ("JR101 Static cannot mark *args parameter 'n'" in said and 'mod.py", line 9' in said)
    ), said
