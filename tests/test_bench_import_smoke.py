"""Run the import-cost benchmark once, quickly, so it cannot rot. Timings are not asserted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _quick(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """One ``--quick`` run of a benchmark script, on the CPU."""
    return subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script), "--quick", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "JAX_PLATFORMS": "cpu"},
    )


def test_bench_import_runs_and_writes_a_table_row(tmp_path: Path) -> None:
    table = tmp_path / "import_cost.md"
    result = _quick("bench_import.py", "--table", str(table))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "import jax" in result.stdout and "opted-in module" in result.stdout
    lines = table.read_text().splitlines()
    assert lines[0].startswith("| date |") and len(lines) == 3 and "(quick)" in lines[2]


def test_bench_hook_share_runs_and_writes_its_rows(tmp_path: Path) -> None:
    """The in-process share of ``import jax``: three kinds of child, one round, rows as JSON."""
    out = tmp_path / "share.json"
    result = _quick("bench_hook_share.py", "--json", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    rows = json.loads(out.read_text())
    assert [row["what"].split(",")[1].split(":")[0].strip() for row in rows] == ["no index", "first", "warm"]
    assert [row["target"] for row in rows] == [None, None, 0.01]
    assert all(0 < row["ratio"]["median"] < 1 for row in rows), rows
    assert "(--quick:" in result.stdout
