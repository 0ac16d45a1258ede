"""JR006 against programs from public bug reports (tests/dataflow_corpus, each naming its thread).

JAX labels each program (does ``main()`` raise a trace-time error?), and ``check``'s JR006 must
agree: no finding on any program JAX runs (precision 1.0), and a finding on at least 80% of the
programs JAX rejects. A program's name states its label (``fail_*``/``ok_*``), checked too.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from golden_cases import jax_rejects as run_case

from jaxrewrite.engine.findings import trace_findings

CORPUS = sorted((Path(__file__).parent / "dataflow_corpus").glob("*.py"))


@cache
def jax_rejects(path: Path) -> bool:
    """JAX's label for a program (the trace-time cases' runner: import it, call ``main()``)."""
    return run_case(path)


def figures() -> tuple[int, int, int, int]:
    """(true positives, false negatives, false positives, true negatives) over the corpus."""
    tp = fn = fp = tn = 0
    for path in CORPUS:
        found = bool(trace_findings(path.read_text(), str(path)))
        if jax_rejects(path):
            tp, fn = tp + found, fn + (not found)
        else:
            fp, tn = fp + found, tn + (not found)
    return tp, fn, fp, tn


def test_corpus_is_large_and_names_its_threads() -> None:
    assert len(CORPUS) >= 40
    for path in CORPUS:
        assert path.read_text().startswith("# https://"), f"{path.name} does not name its thread"


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_label_matches_name_and_no_finding_on_what_runs(path: Path) -> None:
    rejects = jax_rejects(path)
    assert rejects == path.stem.startswith("fail_"), f"{path.name}: JAX {'rejects' if rejects else 'runs'} it"
    if not rejects:
        assert trace_findings(path.read_text(), str(path)) == []


def test_recall_and_precision() -> None:
    tp, fn, fp, _ = figures()
    assert fp == 0
    assert tp / (tp + fn) >= 0.8, f"recall {tp}/{tp + fn}; missed: {missed()}"


def missed() -> list[str]:
    return [p.stem for p in CORPUS if jax_rejects(p) and not trace_findings(p.read_text(), str(p))]


if __name__ == "__main__":
    tp, fn, fp, tn = figures()
    print(f"programs {len(CORPUS)}: rejected by JAX {tp + fn}, run {fp + tn}; "
          f"recall {tp}/{tp + fn} = {tp / (tp + fn):.2f}; precision {tp}/{tp + fp} = {tp / max(tp + fp, 1):.2f}")
    print("missed:", ", ".join(missed()))
