"""The import hook says which markers do nothing (issue 42, item 10), and a warm import says it
again.

A Static under a decorator jaxrewrite does not know (``@my_jit``) runs traced: ``check`` says
JR004, and so must the import. The hook's analysis reports what the ledger leaves reported
(``analyze(report=True)``: JR002, JR004, JR007, JR008, JR014, JR020), issues each as a
RewriteWarning at its line, and keeps them after the code in its pyc (hook/pycfile.py,
hook/pycfile.py): a warm import issues the same warnings without importing the engine. Children
run with bytecode on and the fake jax of helpers_hook (jit records its keywords).
"""

from __future__ import annotations

import importlib.util
import json
import marshal
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
from golden_cases import GOLDEN, display_name
from helpers_hook import Project

from jaxrewrite import errors
from jaxrewrite.engine.findings import analyze
from jaxrewrite.engine.findings.checks.registry import RULES
from jaxrewrite.hook import pycfile

HEAD = (
    "# jaxrewrite: enable\nimport functools\nimport jax\n"
    "from jaxrewrite import Static, NoDiff\n\n\n"
)

#: Each marker that does nothing, spelled the ways a user writes it: (code, line of the warning,
#: module body).
NOTHING = {
    "decorator": (
        "JR004",
        11,
        """
        def my_jit(f):
            return jax.jit(f)


        @my_jit
        def f(x, n: Static[int]):
            return x
        """,
    ),
    "call": (
        "JR004",
        15,
        """
        def my_jit(f):
            return jax.jit(f)


        def f(x, n: Static[int]):
            return x


        g = my_jit(f)
        """,
    ),
    "untransformed def": (
        "JR002",
        7,
        """
        def f(x, n: Static[int]):
            return x
        """,
    ),
    "variable": (
        "JR008",
        7,
        """
        steps: Static[int] = 3
        """,
    ),
    "return annotation": (
        "JR008",
        8,
        """
        @jax.jit
        def f(x, n: Static[int]) -> Static[int]:
            return x
        """,
    ),
    "unused alias": (
        "JR008",
        7,
        """
        Steps = Static[int]
        """,
    ),
    "unregistered class field": (
        "JR008",
        8,
        """
        class Config:
            n: Static[int] = 2
        """,
    ),
    "made from it by a call jaxrewrite cannot see through": (
        "JR007",
        11,
        """
        def f(x, n: Static[int]):
            return x


        h = jax.jit(jax.vmap(functools.partial(f, 2.0)))
        """,
    ),
}


def _module(body: str) -> str:
    return HEAD + textwrap.dedent(body).lstrip("\n")


CHILD = """
import json, sys, warnings
import jaxrewrite
jaxrewrite.install()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import {module}
print(json.dumps({{
    "warnings": [[w.category.__name__, str(w.message).split(" ")[0], w.filename, w.lineno] for w in caught],
    "engine": "jaxrewrite.engine.build" in sys.modules,
}}))
"""  # noqa: E501


def _import(project: Project, module: str, *flags: str) -> dict[str, object]:
    proc = project.run(CHILD.format(module=module), *flags)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


#: helpers_hook's fake jax, with vmap, and taking any callable: these modules only need to import.
FAKE_JAX = "def jit(fun, **kwargs):\n    return fun\n\n\nvmap = jit\n"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    made = Project(tmp_path)
    (tmp_path / "fake" / "jax" / "__init__.py").write_text(FAKE_JAX)
    return made


@pytest.mark.parametrize("case", list(NOTHING))
def test_a_marker_that_does_nothing_is_said_at_import_and_again_when_warm(
    project: Project, case: str
) -> None:
    code, line, body = NOTHING[case]
    path = project.write("mod.py", _module(body))
    cold = _import(project, "mod")
    said = cold["warnings"]
    assert (
        said
        and {tuple(w) for w in said} == {("RewriteWarning", code, str(path), line)}
        and cold["engine"]
    )  # type: ignore[union-attr]
    assert project.rewritten_pycs()
    warm = _import(project, "mod")
    assert warm["warnings"] == cold["warnings"]
    assert not warm["engine"]  # served from the cache: nothing analysed, the warning read back


def test_each_warning_matches_what_check_reports(project: Project) -> None:
    for case, (code, line, body) in NOTHING.items():
        text = _module(body)
        found = [(d.code, d.line) for d in analyze(text, "mod.py", lint=True).diagnostics]
        assert (code, line) in found, case


def test_a_module_whose_markers_all_act_says_nothing(project: Project) -> None:
    project.write(
        "mod.py",
        _module("""
        Steps = Static[int]


        @jax.jit
        def f(x, n: Steps, m: Static[int] = 2):
            return x


        g = jax.jit(f)
        """),
    )
    assert _import(project, "mod")["warnings"] == []
    assert _import(project, "mod")["warnings"] == []


def test_a_name_from_another_module_is_checks_to_follow_not_the_imports(project: Project) -> None:
    # JR009 depends on another file, which the module's cache key does not cover: check says it.
    project.write("aliases.py", "from jaxrewrite import Static\nSteps = Static[int]\n")
    project.write(
        "mod.py",
        _module("""
        from aliases import Steps


        @jax.jit
        def f(x, n: Steps):
            return x
        """),
    )
    assert _import(project, "mod")["warnings"] == []
    assert "JR009" in {
        d.code
        for d in analyze(
            _module("from aliases import Steps\n\n\n@jax.jit\ndef f(x, n: Steps):\n    return x\n"),
            "mod.py",
            lint=True,
        ).diagnostics
    }


@pytest.mark.parametrize("comment", ["# noqa: JR004", "# noqa", "# noqa: JR002, JR004"])
def test_noqa_silences_it_as_it_does_for_check(project: Project, comment: str) -> None:
    _, _, body = NOTHING["decorator"]
    project.write("mod.py", _module(body.replace("@my_jit\n", f"@my_jit  {comment}\n")))
    assert _import(project, "mod")["warnings"] == []
    assert _import(project, "mod")["warnings"] == []


def test_a_noqa_for_another_code_does_not(project: Project) -> None:
    _, _, body = NOTHING["decorator"]
    project.write("mod.py", _module(body.replace("@my_jit\n", "@my_jit  # noqa: JR002\n")))
    assert [w[1] for w in _import(project, "mod")["warnings"]] == ["JR004"]  # type: ignore[union-attr]


def test_python_warning_filters_select_by_code_and_can_make_it_fatal(project: Project) -> None:
    _, _, body = NOTHING["decorator"]
    project.write("mod.py", _module(body))
    _import(project, "mod")  # cold: the cache is written
    for _ in range(2):  # cold path and warm path alike
        quiet = project.run(
            "import jaxrewrite; jaxrewrite.install(); import mod", "-W", "ignore:JR004"
        )
        assert quiet.returncode == 0 and "JR004" not in quiet.stderr
        loud = project.run(
            "import jaxrewrite; jaxrewrite.install(); import mod",
            "-W",
            "error::jaxrewrite.RewriteWarning",
        )
        assert (
            loud.returncode != 0
            and "RewriteWarning: JR004 the marker on 'n' of 'f' does nothing under 'my_jit'"
            in loud.stderr
        )
        shown = project.run("import jaxrewrite; jaxrewrite.install(); import mod")
        assert shown.returncode == 0 and "mod.py:11: RewriteWarning: JR004" in shown.stderr


def test_fixing_the_module_drops_the_warning(project: Project) -> None:
    _, _, body = NOTHING["untransformed def"]
    path = project.write("mod.py", _module(body))
    assert len(_import(project, "mod")["warnings"]) == 1  # type: ignore[arg-type]
    path.write_text(_module(body) + "\n\ng = jax.jit(f)\n")
    assert _import(project, "mod")["warnings"] == []


def test_the_runner_says_it_too_cold_and_warm(project: Project) -> None:
    _, _, body = NOTHING["decorator"]
    script = project.write("script.py", _module(body))
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-m", "jaxrewrite", str(script)],
            cwd=project.root,
            env=project.env(),
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.count("RewriteWarning: JR004") == 1, proc.stderr


# -- in process: the cache format, the pipelines, the gate ------------------------------------


def test_the_notes_travel_in_the_pyc_and_back() -> None:
    text = _module(NOTHING["decorator"][2])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = pycfile.compile_source(text.encode(), "mod.py")
    said = pycfile.held(code)
    assert [m.split(" ")[0] for m, _ in said] == ["JR004"] and [str(w.message) for w in caught] == [
        m for m, _ in said
    ]
    data = pycfile.pack(code, pycfile.hash_key(text.encode()))
    back = pycfile.unpack(data)
    assert (
        back is not None
        and pycfile.held(back) == said
        and marshal.dumps(back) == marshal.dumps(code)
    )
    # the code reads as in any pyc: what follows it is ignored by marshal
    assert marshal.dumps(marshal.loads(data[16:])) == marshal.dumps(code)
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        errors.say(pycfile.held(back), "/moved/mod.py")  # as the hook serves cached code
    assert [(str(w.message), w.filename, w.lineno) for w in again] == [
        (m, "/moved/mod.py", n) for m, n in said
    ]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(
            lambda d: d[:-8] + (10**6).to_bytes(4, "little") + d[-4:],
            id="notes-length-past-the-file",
        ),
        pytest.param(lambda d: d[:-8] + (0).to_bytes(4, "little") + d[-4:], id="notes-length-zero"),
        pytest.param(lambda d: d[:-6] + b"\xff\xff" + d[-8:], id="garbage-notes"),
    ],
)
def test_damaged_notes_mean_no_cache(damage: object) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = pycfile.compile_source(_module(NOTHING["variable"][2]).encode(), "mod.py")
    assert pycfile.unpack(damage(pycfile.pack(code, pycfile.hash_key(b"x")))) is None  # type: ignore[operator]


def test_notes_of_a_non_note_shape_are_refused() -> None:
    code = compile("x = 1", "m.py", "exec")
    said = marshal.dumps(("not a pair",))
    data = (
        pycfile.pack(code, pycfile.hash_key(b"x"))[: -8 - len(marshal.dumps(()))]
        + said
        + len(said).to_bytes(4, "little")
        + b"JRn1"
    )
    assert pycfile.unpack(data) is None


def test_the_assertion_rewriting_pipeline_keeps_them_too() -> None:
    steps = pycfile.Pipeline(
        "other", lambda text, path, optimize: compile(text, path, "exec", dont_inherit=True)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = steps.compile(_module(NOTHING["decorator"][2]).encode(), "mod.py", -1)
    assert [m.split(" ")[0] for m, _ in pycfile.held(code)] == ["JR004"]


def test_a_field_held_in_a_pytree_is_said_too() -> None:
    pytest.importorskip("equinox")
    text = _module("""
        import equinox as eqx
        from typing import TypedDict


        class Cfg(TypedDict):
            n: Static[int]


        class Model(eqx.Module):
            cfg: Cfg
        """)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = pycfile.compile_source(text.encode(), "mod.py")
    assert "JR014" in [m.split(" ")[0] for m, _ in pycfile.held(code)]


def _texts() -> list[tuple[str, str]]:
    """Opted-in texts: every golden input, the generated benchmark modules, and the installed
    sources of equinox and flax with the pragma and a Static import prepended."""
    found = [
        (display_name(p), p.read_text(encoding="utf-8"))
        for p in sorted(GOLDEN.rglob("*.py"))
        if not p.name.endswith(".out.py")
    ]
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        import bench_cold
    finally:
        sys.path.pop(0)
    found += [
        ("realistic.py", bench_cold.realistic_module(40)),
        ("dense.py", bench_cold.dense_module(60)),
    ]
    for package in ("equinox", "flax"):
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        for path in sorted(Path(next(iter(spec.submodule_search_locations))).rglob("*.py"))[:80]:
            found.append(
                (
                    str(path),
                    "# jaxrewrite: enable\nfrom jaxrewrite import Static\n"
                    + path.read_text(encoding="utf-8"),
                )
            )
    return found


def test_the_hooks_warnings_are_checks_findings_of_those_codes() -> None:
    """Over every golden input: what the import says is what ``check`` says, for the codes the
    import reports (JR009 and the findings at uses are check's alone)."""
    said = 0
    for name, text in _texts()[:400]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                hook = analyze(text, name, report=True).diagnostics
                lint = analyze(text, name, lint=True).diagnostics
            except (SyntaxError, RecursionError):
                continue
        wanted = {m.RULE.code for m in RULES if m.RULE.at_import}
        assert {(d.code, d.line) for d in hook if d.code in wanted} <= {
            (d.code, d.line) for d in lint
        }, name
        said += sum(d.code in wanted for d in hook)
    assert said >= 5
