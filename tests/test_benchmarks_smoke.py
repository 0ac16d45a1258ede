"""Every benchmark runs, quickly, so none can rot. Timings are printed, never asserted.

Each test runs ``python benchmarks/run.py --quick`` for one script (``--skip`` for the others), so
that pytest-xdist spreads the scripts over the workers; one more run of two scripts checks that
run.py merges their rows into one table with the profile section.
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


#: run.py's names for its scripts (``--skip NAME``), keyed by script file.
NAMES = {
    "bench_dispatch.py": "dispatch",
    "bench_fields.py": "fields",
    "bench_cold.py": "cold",
    "bench_leaves.py": "leaves",
    "bench_check.py": "check",
    "bench_migrate.py": "migrate",
    "bench_integrations.py": "integrations",
    "bench_library.py": "library",
    "bench_import.py": "import",
    "bench_runner.py": "runner",
    "bench_hook_share.py": "share",
}


def quick(tmp_path: Path, *names: str) -> QuickRun:
    """``run.py --quick`` over the scripts ``names`` only."""
    results = tmp_path / "results.md"
    skips = [arg for other in NAMES.values() if other not in names for arg in ("--skip", other)]
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "run.py"), "--quick", "--out", str(results), *skips],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "JAX_PLATFORMS": "cpu"},
        cwd=REPO,
    )
    return QuickRun(result, results)


def test_names_are_run_pys_own() -> None:
    """The table above names every script run.py runs, by run.py's own names."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import run  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    assert {script: name for name, script, *_ in run.BENCHMARKS} == NAMES


def test_run_exits_zero_and_writes_one_table(tmp_path: Path) -> None:
    quick_run = quick(tmp_path, "dispatch", "cold")
    assert quick_run.result.returncode == 0, quick_run.explain()
    text = quick_run.results.read_text()
    assert "| what | ratio | IQR | target |" in text
    assert "--quick" in text and "Targets:" in text
    for prefix in ("dispatch:", "cold realistic:", "cold dense:"):
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
def test_script_ran_and_printed_its_rows(tmp_path: Path, script: str, rows: list[str]) -> None:
    quick_run = quick(tmp_path, NAMES[script])
    assert quick_run.result.returncode == 0, quick_run.explain()
    table = quick_run.results.read_text()
    assert table.count("\n| ") >= 2, table  # the header and at least one row of this script
    section = quick_run.stdout.partition(f"$ {script} ")[2]
    assert section, f"{script} was not run:\n{quick_run.explain()}"
    section = section.split("\n$ ", 1)[0]
    assert "FAILED" not in section, section
    for row in rows:
        assert row in section, (row, section)
    assert "ratio [IQR]" in section and "(--quick:" in section


@pytest.mark.parametrize(
    ("name", "rows"),
    [
        ("migrate", ["| migrate jax: migrate_source / compile"]),
        ("import", ["| import: import jax", "| import: opted-in module, warm cache"]),
        ("share", ["| hook share of import jax, warm: hook self time / import jax"]),
        ("runner", ["| runner warm: python -m jaxrewrite script.py / python script.py with install()"]),
    ],
)
def test_table_only_scripts_run_and_fill_the_table(tmp_path: Path, name: str, rows: list[str]) -> None:
    """The scripts whose rows run.py reads from their own output format: checked in the table."""
    quick_run = quick(tmp_path, name)
    assert quick_run.result.returncode == 0, quick_run.explain()
    table = quick_run.results.read_text()
    for row in rows:
        assert row in table, (row, table)
