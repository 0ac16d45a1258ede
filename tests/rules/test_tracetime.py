"""JR006 against JAX itself: every program in tests/rules/tracetime_cases is run for real, and the
finding must appear exactly where JAX raises at trace time (the ground truth is JAX, not a list).

A case's name says what the author expected (``fail_*``/``ok_*``); the test checks that too, so a
case that stops exercising what it was written for is noticed.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from golden_cases import jax_rejects

from jaxrewrite import NotRewrittenWarning
from jaxrewrite.engine.findings import trace_findings

CASES = sorted((Path(__file__).parent / "tracetime_cases").glob("*.py"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_finding_iff_jax_rejects(path: Path) -> None:
    text = path.read_text()
    found = trace_findings(text, str(path))
    rejects = jax_rejects(path)
    assert rejects == path.stem.startswith("fail_"), (
        f"{path.name}: the case no longer does what its name says"
    )
    assert bool(found) == rejects, (
        f"{path.name}: JAX {'rejects' if rejects else 'runs'} it; findings: {found}"
    )


def test_seed_example_names_each_parameter_its_error_and_the_fix() -> None:
    text = (
        "from typing import Callable\nimport jax\n\n@jax.jit\n"
        "def f(x, c_func: Callable[[float], float], n: int, mode: str = 'a'):\n"
        "    for _ in range(n):\n        x = c_func(x)\n    if mode == 'a':\n"
        "        x = x + 1\n    return x\n"
    )
    found = {d.message.split("'")[1]: d for d in trace_findings(text, "seed.py")}
    assert set(found) == {"c_func", "n", "mode"}
    assert (found["n"].line, found["n"].col) == (6, 14)
    assert "TracerIntegerConversionError" in found["n"].message and "line 4:2" in found["n"].message
    assert "not a valid JAX type" in found["c_func"].message
    assert "static_argnames=('mode',)" in found["mode"].message  # plain JAX: the keyword is the fix
    marked = "# jaxrewrite: enable\nfrom jaxrewrite import Static\n" + text
    assert all("Static[...]" in d.message for d in trace_findings(marked, "seed.py"))


def test_check_reports_plain_jax_modules(tmp_path: Path) -> None:
    case = tmp_path / "plain.py"
    case.write_text((Path(__file__).parent / "tracetime_cases" / "fail_range.py").read_text())
    out = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", "check", str(case)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 1 and "JR006" in out.stdout, out


# -- check --fix --------------------------------------------------------------------------------

from jaxrewrite.engine.rewrite import rewrite_source  # noqa: E402
from jaxrewrite.migrate.fix import fix_source  # noqa: E402

_NO_PRAGMA = '''"""A module that imports jaxrewrite but never opted in."""
from functools import partial
from typing import Callable

import jax
import jax.numpy as jnp

from jaxrewrite import Static


@partial(jax.jit, static_argnums=(1,))
def f(x, k, c_func: Callable, n: int, mode: str = "a"):
    for _ in range(n):
        x = c_func(x)
    return x * k if mode == "a" else x


def g(x, n):
    return x[:n]


g_jit = jax.jit(g)


def main():
    return f(jnp.ones(3), 2, jnp.sin, 3, mode="b").sum() + g_jit(jnp.ones(5), 2).sum()
'''


def _run_rewritten(text: str, name: str) -> object:
    namespace: dict[str, object] = {"__name__": name}
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", NotRewrittenWarning
        )  # exec'd text is never the hook's: expected
        exec(compile(rewrite_source(text, name), name, "exec"), namespace)
    return namespace["main"]()  # type: ignore[operator]


def test_fix_adds_markers_import_and_pragma_and_the_program_then_runs() -> None:
    namespace: dict[str, object] = {"__name__": "before"}
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", NotRewrittenWarning
        )  # exec'd text is never the hook's: expected
        exec(compile(_NO_PRAGMA, "before", "exec"), namespace)
    with pytest.raises(TypeError):  # JAX's own verdict on the unfixed module
        namespace["main"]()  # type: ignore[operator]
    result = fix_source(_NO_PRAGMA, "m.py")
    assert sorted(result.fixed) == [("f", "c_func"), ("f", "mode"), ("f", "n"), ("g", "n")]
    assert "# jaxrewrite: enable\n" in result.text
    assert (
        'def f(x, k: Static, c_func: Static[Callable], n: Static[int], mode: Static[str] = "a"):'
        in result.text
    )
    assert "def g(x, n: Static):" in result.text and "@jax.jit\n" in result.text
    assert trace_findings(result.text, "m.py") == []
    assert _run_rewritten(result.text, "after") == pytest.approx(float(jnp_sum()))


def jnp_sum() -> float:
    """The same program by hand in plain JAX (no transform: mode="b" returns x after 3 sines)."""
    import jax.numpy as jnp

    x = jnp.ones(3)
    for _ in range(3):
        x = jnp.sin(x)
    return float(x.sum() + jnp.ones(5)[:2].sum())


def test_fix_keeps_an_opted_in_module_and_writes_plain_jax_keywords() -> None:
    opted = (
        Path(__file__).resolve().parents[2] / "golden" / "check" / "jr006_opted_in.py"
    ).read_text()
    fixed = fix_source(opted, "o.py")
    assert fixed.fixed == [("f", "n")] and "def f(x, k: Static[int], n: Static[int]):" in fixed.text
    assert fixed.text.count("\n") == opted.count(
        "\n"
    )  # nothing to add: pragma and import are there
    plain = (Path(__file__).parent / "tracetime_cases" / "fail_range.py").read_text()
    fixed_plain = fix_source(plain, "p.py")  # plain JAX: the transform's own keyword, no marker
    assert (
        fixed_plain.fixed == [("f", "n")] and not fixed_plain.refused
    )  # a bare @jax.jit: functools.partial
    assert (
        "@functools.partial(jax.jit, static_argnames=('n',))" in fixed_plain.text
        and "Static" not in fixed_plain.text
    )


def test_check_fix_writes_the_file(tmp_path: Path) -> None:
    case = tmp_path / "m.py"
    case.write_text(_NO_PRAGMA)
    out = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", "check", "--fix", str(case)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (
        out.returncode == 0
        and out.stdout == "All checks passed!\n"
        and "annotated Static[...]" in out.stderr
    ), out
    assert case.read_text() == fix_source(_NO_PRAGMA, str(case)).text
