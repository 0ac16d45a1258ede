"""Every benchmark runs, quickly, so none can rot. Timings are printed, never asserted.

One ``python benchmarks/run.py --quick`` runs each script with ``--quick`` in its own interpreter
(bench_dispatch, bench_cold, bench_leaves and the existing bench_import) and writes the combined
table to a scratch file; the tests below check each script's rows in that output.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


class QuickRun:
    def __init__(self, result: subprocess.CompletedProcess[str], results: Path) -> None:
        self.result = result
        self.stdout = result.stdout
        self.results = results

    def explain(self) -> str:
        return self.result.stdout[-4000:] + self.result.stderr[-4000:]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> QuickRun:
    results = tmp_path_factory.mktemp("bench") / "results.md"
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "run.py"), "--quick", "--out", str(results)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "JAX_PLATFORMS": "cpu"},
        cwd=REPO,
    )
    return QuickRun(result, results)


def test_run_exits_zero_and_writes_one_table(quick_run: QuickRun) -> None:
    assert quick_run.result.returncode == 0, quick_run.explain()
    text = quick_run.results.read_text()
    assert "| what | ratio | IQR | target |" in text
    assert "--quick" in text and "Targets:" in text
    for prefix in ("dispatch:", "cold realistic:", "cold dense:", "leaves N=", "import: import jax"):
        assert f"| {prefix}" in text, (prefix, text)
    assert "rewrite_source" in text  # bench_cold's profile section


@pytest.mark.parametrize(
    ("script", "rows"),
    [
        ("bench_dispatch.py", ["dispatch: jaxrewrite / hand jax.jit ", "dispatch: equinox.filter_jit / hand jax.jit"]),
        (
            "bench_fields.py",
            [
                "fields: jaxrewrite Static / hand eqx.field(static=True), eqx.filter_jit",
                "fields: jaxrewrite Static / hand eqx.field(static=True), jax.jit",
            ],
        ),
        ("bench_cold.py", ["cold realistic: rewrite+compile / compile", "cold dense: floor parse+compile / compile"]),
        ("bench_leaves.py", ["jaxrewrite / equinox.filter_jit", "split alone: S=", "overhead over JAX: N="]),
        ("bench_check.py", ["check jax+numpy (with JR006) / compile", "marker via jaxrewrite / via jaxrewrite.markers"]),
        (
            "bench_library.py",
            ["library import (jax included): prebuilt cache / by hand", "library import after jax: read-only, no compile"],
        ),
        (
            "bench_integrations.py",
            ["cell definition: extension / hand-written", "pytest --collect-only cold: opted-in / hand-written test file"],
        ),
    ],
)
def test_script_ran_and_printed_its_rows(quick_run: QuickRun, script: str, rows: list[str]) -> None:
    section = quick_run.stdout.partition(f"$ {script} ")[2]
    assert section, f"{script} was not run:\n{quick_run.explain()}"
    section = section.split("\n$ ", 1)[0]
    assert "FAILED" not in section, section
    for row in rows:
        assert row in section, (row, section)
    assert "ratio [IQR]" in section and "(--quick:" in section
