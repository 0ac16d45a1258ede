"""jaxrewrite composes with the import hooks JAX projects use (hook/finder.py's ``_Composed``: the
other tool's loader, wrapped for the module), with the real packages: jaxtyping, beartype.claw and
typeguard. jaxrewrite's finder must stand in front of theirs: installed last, or installed again.

Each run is a child process (hooks and bytecode caches are per process) with the real jax: the
opted-in function is compared with the same function jitted by hand (results and trace counts),
and a plain function of the same module must still be checked by the other tool.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support import child_env, python, write

pytest.importorskip("jaxtyping")
pytest.importorskip("beartype")
pytest.importorskip("typeguard")

MODULE = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

TRACES = []


@jax.jit
def f(x, n: Static[int]):
    TRACES.append(n)
    return x * n


def checked(x: int) -> int:
    return x
"""

#: How each tool is installed for the package ``pkgc``.
INSTALL = {
    "jaxtyping": "import jaxtyping; jaxtyping.install_import_hook('pkgc', 'beartype.beartype')",
    "beartype": "from beartype.claw import beartype_package; beartype_package('pkgc')",
    "typeguard": "from typeguard import install_import_hook; install_import_hook(['pkgc'])",
}

CHILD = """\
import json, sys
import jax, jax.numpy as jnp
tool, order = sys.argv[1], sys.argv[2]
if order == "jaxrewrite-first":
    import jaxrewrite; jaxrewrite.install(["pkgc"])
if order != "none":
    exec(INSTALL[tool])
if order == "jaxrewrite-last":
    import jaxrewrite; jaxrewrite.install(["pkgc"])
if order == "context":  # jaxtyping's hook as a context manager, jaxrewrite's inside it
    import jaxrewrite, jaxtyping
    with jaxtyping.install_import_hook("pkgc", "beartype.beartype"):
        jaxrewrite.install(["pkgc"])
        import pkgc.mod
import pkgc.mod as mod
hand_traces = []
def _hand(x, n):
    hand_traces.append(n)
    return x * n
hand = jax.jit(_hand, static_argnames="n")
ones = jnp.ones(3)
try:
    results = [mod.f(ones, n).tolist() for n in (2, 2, 3)]
except Exception as exc:  # unrewritten, n is traced: a checker refuses it as an int
    results = type(exc).__name__
expected = [hand(ones, n).tolist() for n in (2, 2, 3)]
try:
    mod.checked("not an int")
    check = None
except Exception as exc:
    check = type(exc).__name__
print(json.dumps({
    "same": results == expected,
    "results": results,
    "engine": "jaxrewrite.engine.rewrite" in sys.modules,  # rewritten in this process, not cached
    "traces": [t if isinstance(t, int) else "traced" for t in mod.TRACES],
    "hand": hand_traces,
    "check": check,
}))
"""


def run(
    root: Path, tool: str, order: str, bytecode: bool = False, check_pycs: str | None = None
) -> dict[str, object]:
    proc = python(
        "-c",
        f"INSTALL = {INSTALL!r}\n" + CHILD,
        tool,
        order,
        cwd=root,
        flags=[] if check_pycs is None else ["--check-hash-based-pycs", check_pycs],
        env=child_env(bytecode=bytecode, path=[root]),
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "pkgc" / "__init__.py", "")
    write(tmp_path / "pkgc" / "mod.py", MODULE)
    return tmp_path


#: What each tool raises for ``checked("not an int")``.
CHECK_ERRORS = {
    "jaxtyping": {"TypeCheckError", "BeartypeCallHintParamViolation"},
    "beartype": {"BeartypeCallHintParamViolation"},
    "typeguard": {"TypeCheckError"},
}
REWRITTEN = {"same": True, "traces": [2, 3], "hand": [2, 3]}


#: Who stands in front when jaxrewrite's hook is installed first: beartype.claw works through
#: ``sys.path_hooks``, behind jaxrewrite's finder either way; the other two put a finder first.
ORDERS = [("beartype", "jaxrewrite-first")] + [
    (tool, "jaxrewrite-last") for tool in sorted(INSTALL)
]


@pytest.mark.parametrize(("tool", "order"), ORDERS)
def test_both_transformations(project: Path, tool: str, order: str) -> None:
    """The statics are applied (as by hand) and the other tool still checks."""
    got = run(project, tool, order)
    assert {k: got[k] for k in REWRITTEN} == REWRITTEN
    assert got["check"] in CHECK_ERRORS[tool]


@pytest.mark.parametrize("tool", ["jaxtyping", "typeguard"])
def test_a_finder_put_in_front_of_jaxrewrites_is_named_and_installing_again_composes(
    project: Path, tool: str
) -> None:
    """Installed after jaxrewrite's hook, the tool's finder takes the module first: it runs
    unrewritten, and the warning names the tool's loader and finder and says to install
    jaxrewrite's hook after it; doing so (installing again) composes."""
    proc = python(
        "-c",
        f"INSTALL = {INSTALL!r}\n" + CHILD,
        tool,
        "jaxrewrite-first",
        cwd=project,
        env=child_env(path=[project]),
    )
    assert proc.returncode == 0, proc.stderr
    assert "NotRewrittenWarning: module 'pkgc.mod' was not rewritten" in proc.stderr
    assert (
        "whose finder stands in front of jaxrewrite's: install jaxrewrite's hook after that tool's"
        in proc.stderr
    )
    assert "(found by the finder " in proc.stderr
    again = CHILD.replace(
        'if order == "jaxrewrite-last":', 'if order in ("jaxrewrite-last", "jaxrewrite-first"):'
    )
    proc = python(
        "-c",
        f"INSTALL = {INSTALL!r}\n" + again,
        tool,
        "jaxrewrite-first",
        cwd=project,
        env=child_env(path=[project]),
    )
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert {k: got[k] for k in REWRITTEN} == REWRITTEN and got["check"] in CHECK_ERRORS[tool]


def test_jaxtyping_context_manager(project: Path) -> None:
    got = run(project, "jaxtyping", "context")
    assert {k: got[k] for k in REWRITTEN} == REWRITTEN
    assert got["check"] in CHECK_ERRORS["jaxtyping"]


def test_beartype_this_package(project: Path) -> None:
    """``beartype_this_package()`` in the package's ``__init__``, with jaxrewrite's hook installed
    first."""
    write(
        project / "pkgc" / "__init__.py",
        "from beartype.claw import beartype_this_package\nbeartype_this_package()\n",
    )
    got = run(project, "beartype", "jaxrewrite-first")
    assert {k: got[k] for k in REWRITTEN} == REWRITTEN
    assert got["check"] in CHECK_ERRORS["beartype"]


@pytest.mark.parametrize("tool", sorted(INSTALL))
def test_caches_stay_exact(project: Path, tool: str) -> None:
    """With bytecode on: the other tool alone runs the module unrewritten (its pyc holds no
    rewrite), both together run it rewritten (no pyc of the other tool's serves them), in turn."""
    for _ in range(2):
        both = run(project, tool, "jaxrewrite-last", bytecode=True)
        assert both["traces"] == [2, 3] and both["check"] is not None
        alone = run(project, tool, "tool-only", bytecode=True)
        assert alone["traces"] in (
            ["traced"],
            [],
        )  # traced, or refused by the checker before the body


@pytest.mark.parametrize(("tool", "order"), ORDERS)
def test_the_composed_rewrite_is_cached_in_the_hooks_pyc_named_for_the_tool(
    project: Path, tool: str, order: str
) -> None:
    """A pyc of the hook's, named for the tool's loader, caches the composed code: a second run
    neither rewrites nor imports the engine, and the tool still checks; the tool's own pyc of
    the module is never written. An edit saved later is compiled afresh."""
    first = run(project, tool, order, bytecode=True)
    again = run(project, tool, order, bytecode=True)
    assert first["engine"] and not again["engine"]
    assert {k: again[k] for k in REWRITTEN} == REWRITTEN and again["check"] in CHECK_ERRORS[tool]
    pycs = [p.name for p in (project / "pkgc" / "__pycache__").glob("mod.*.pyc")]
    assert len(pycs) == 1 and ".opt-jaxrewrite" in pycs[0], pycs
    path = project / "pkgc" / "mod.py"
    before = path.stat()
    path.write_text(path.read_text().replace("x * n", "x + n"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 2_000_000_000))
    edited = run(project, tool, order, bytecode=True)
    assert edited["engine"] and edited["results"] == [[3.0] * 3, [3.0] * 3, [4.0] * 3]
    assert edited["traces"] == [2, 3]


@pytest.mark.parametrize("check_pycs", ["never", "always"])
def test_whatever_python_checks_of_hash_based_pycs(project: Path, check_pycs: str) -> None:
    """``--check-hash-based-pycs``: with ``always`` the rewrite still runs (compiled afresh), and
    with ``never`` the tool alone still never takes the rewrite's pyc for its own."""
    for _ in range(2):
        both = run(project, "typeguard", "jaxrewrite-last", bytecode=True, check_pycs=check_pycs)
        assert both["traces"] == [2, 3] and both["check"] is not None
    alone = run(project, "typeguard", "tool-only", bytecode=True, check_pycs=check_pycs)
    assert alone["traces"] in (["traced"], [])


def test_the_warning_names_the_loader(project: Path) -> None:
    """Without jaxrewrite's hook, the module another tool loaded runs unrewritten: the warning
    says which loader loaded it, then what to do."""
    proc = python(
        "-c",
        f"INSTALL = {INSTALL!r}\n" + CHILD,
        "typeguard",
        "tool-only",
        cwd=project,
        env=child_env(path=[project]),
    )
    assert "NotRewrittenWarning: module 'pkgc.mod' was not rewritten" in proc.stderr, proc.stderr
    assert (
        "it was loaded by typeguard._importhook.TypeguardLoader (found by the finder typeguard."
        in proc.stderr
    )
    assert "TypeguardFinder): no import hook is installed" in proc.stderr


@pytest.mark.parametrize(("tool", "order"), ORDERS)
def test_a_marker_that_does_nothing_is_said_by_the_tools_loader_cold_and_warm(
    project: Path, tool: str, order: str
) -> None:
    """Issue 42.10 under another tool's loader: the import says JR004 (a Static under a decorator
    jaxrewrite does not know), and the tool's own pyc of the rewrite carries it for the warm run."""
    path = project / "pkgc" / "mod.py"
    path.write_text(
        MODULE
        + (
            "\n\ndef my_jit(g):\n    return jax.jit(g)\n\n\n@my_jit\n"
            "def unknown(x, n: Static[int]):\n    return x\n"
        )
    )
    for warm in (False, True):
        proc = python(
            "-c",
            f"INSTALL = {INSTALL!r}\n" + CHILD,
            tool,
            order,
            cwd=project,
            env=child_env(bytecode=True, path=[project]),
        )
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout.strip().splitlines()[-1])["engine"] is not warm
        said = (
            "mod.py:22: RewriteWarning: JR004 the marker on 'n' of 'unknown' does nothing "
            "under 'my_jit'"
        )
        assert proc.stderr.count(said) == 1, proc.stderr
