"""JR006 against JAX itself: every program in tests/tracetime_cases is run for real, and the
finding must appear exactly where JAX raises at trace time (the ground truth is JAX, not a list).

A case's name says what the author expected (``fail_*``/``ok_*``); the test checks that too, so a
case that stops exercising what it was written for is noticed.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from jaxrewrite.engine.tracetime import trace_findings

CASES = sorted((Path(__file__).parent / "tracetime_cases").glob("*.py"))
_TRACE_ERRORS = ("TypeError", "IndexError", "ConcretizationTypeError", "TracerIntegerConversionError",
                 "TracerBoolConversionError")


def _jax_rejects(path: Path) -> bool:
    """Import the case and call its ``main()``: does JAX raise one of the trace-time errors?"""
    spec = importlib.util.spec_from_file_location(f"tracetime_case_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        module.main()
    except Exception as exc:  # noqa: BLE001 - the ground truth is whatever JAX raises
        assert type(exc).__name__ in _TRACE_ERRORS, f"{path.name}: unexpected {exc!r}"
        return True
    return False


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_finding_iff_jax_rejects(path: Path) -> None:
    text = path.read_text()
    found = trace_findings(text, str(path))
    rejects = _jax_rejects(path)
    assert rejects == path.stem.startswith("fail_"), f"{path.name}: the case no longer does what its name says"
    assert bool(found) == rejects, f"{path.name}: JAX {'rejects' if rejects else 'runs'} it; findings: {found}"


def test_seed_example_names_each_parameter_its_error_and_the_fix() -> None:
    text = (
        "from typing import Callable\nimport jax\n\n@jax.jit\n"
        "def f(x, c_func: Callable[[float], float], n: int, mode: str = 'a'):\n"
        "    for _ in range(n):\n        x = c_func(x)\n    if mode == 'a':\n        x = x + 1\n    return x\n"
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
        [sys.executable, "-m", "jaxrewrite", "check", str(case)], capture_output=True, text=True, check=False
    )
    assert out.returncode == 1 and "JR006" in out.stdout, out
