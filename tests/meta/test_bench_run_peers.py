"""benchmarks/run.py skips a benchmark whose peer is not installed, saying so, and still exits 0."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_a_benchmark_without_its_peer_is_skipped_with_a_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    spec = importlib.util.spec_from_file_location(
        "bench_run_under_test", REPO / "benchmarks" / "run.py"
    )
    assert spec is not None and spec.loader is not None
    run = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_run_under_test", run)
    spec.loader.exec_module(run)
    assert {name for name, *_ in run.BENCHMARKS} >= {
        "dispatch",
        "fields",
        "leaves",
        "integrations",
    }
    monkeypatch.setattr(
        run,
        "BENCHMARKS",
        [("fields", "bench_fields.py", [], ("no_such_peer_jaxrewrite",))],
    )
    out = tmp_path / "results.md"
    assert run.main(["--quick", "--out", str(out)]) == 0
    text = out.read_text()
    assert "bench_fields.py: skipped, no_such_peer_jaxrewrite not installed" in text
    assert "Skipped (a peer is not installed)" in text
