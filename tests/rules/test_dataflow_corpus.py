"""JR006 against programs from public bug reports (tests/rules/dataflow_corpus, each naming its
thread).

Each set is one folder: ``original`` (the top level, the threads the dataflow was shaped around),
``round3`` (32 further reports collected for issue 55 before the analysis changed) and ``final15``
(15 more, collected after that change and measured untouched: recall 11/15, precision 11/11;
14/15 once its misses were read, so no longer untouched). JAX labels each
program (does ``main()`` raise a trace-time error?), and ``check``'s JR006 must agree: no finding on
any program JAX runs (precision 1.0), and recall no lower than the set's floor. A program's name
states its label (``fail_*``/``ok_*``), checked too. ``python tests/rules/test_dataflow_corpus.py``
prints the figures per set, re-labelling every program by running it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from flow_support import program_rejects

from jaxrewrite.engine.findings import trace_findings

ROOT = Path(__file__).parent / "dataflow_corpus"
SETS = {
    "original": sorted(ROOT.glob("*.py")),
    "round3": sorted((ROOT / "round3").glob("*.py")),
    "final15": sorted((ROOT / "final15").glob("*.py")),
}
CORPUS = SETS["original"]
#: The lowest recall each set may fall to: the figure measured when the set was last raised.
FLOORS = {"original": 30 / 32, "round3": 24 / 32, "final15": 14 / 15}
#: Programs JAX runs that JR006 still flags today (each a false finding to remove).
KNOWN_FALSE: set[str] = set()


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}" if path.parent != ROOT else f"original/{path.stem}"


def jax_rejects(path: Path) -> bool:
    """JAX's label for a program: import it, call ``main()``; does JAX raise?"""
    return program_rejects(path)


def found(path: Path) -> bool:
    return bool(trace_findings(path.read_text(), str(path)))


def figures(paths: list[Path] = CORPUS) -> tuple[int, int, int, int]:
    """(true positives, false negatives, false positives, true negatives) over a set."""
    tp = fn = fp = tn = 0
    for path in paths:
        hit = found(path)
        if jax_rejects(path):
            tp, fn = tp + hit, fn + (not hit)
        else:
            fp, tn = fp + hit, tn + (not hit)
    return tp, fn, fp, tn


def missed(paths: list[Path] = CORPUS) -> list[str]:
    return [p.stem for p in paths if jax_rejects(p) and not found(p)]


def test_sets_are_large_and_name_their_threads() -> None:
    assert len(SETS["original"]) >= 40 and len(SETS["round3"]) >= 60 and len(SETS["final15"]) >= 30
    for path in (p for paths in SETS.values() for p in paths):
        assert path.read_text().startswith("# https://"), f"{path.name} does not name its thread"


ALL = [p for paths in SETS.values() for p in paths]


@pytest.mark.parametrize("path", ALL, ids=[_id(p) for p in ALL])
def test_label_matches_name_and_no_finding_on_what_runs(path: Path) -> None:
    rejects = jax_rejects(path)
    assert rejects == path.stem.startswith("fail_"), (
        f"{path.name}: JAX {'rejects' if rejects else 'runs'} it"
    )
    if not rejects:
        assert found(path) == (_id(path) in KNOWN_FALSE)


@pytest.mark.parametrize("name", SETS)
def test_recall_and_precision(name: str) -> None:
    tp, fn, fp, _ = figures(SETS[name])
    assert fp == sum(k.startswith(f"{name}/") for k in KNOWN_FALSE)
    assert tp / (tp + fn) >= FLOORS[name] - 1e-9, (
        f"recall {tp}/{tp + fn}; missed: {missed(SETS[name])}"
    )


if __name__ == "__main__":
    for name, paths in SETS.items():
        tp, fn, fp, tn = figures(paths)
        print(
            f"{name}: programs {len(paths)}, rejected by JAX {tp + fn}, run {fp + tn}; "
            f"recall {tp}/{tp + fn} = {tp / (tp + fn):.2f}; "
            f"precision {tp}/{tp + fp} = {tp / max(tp + fp, 1):.2f}"
        )
        print("  missed:", ", ".join(missed(paths)) or "none")
        wrong = [p.stem for p in paths if not jax_rejects(p) and found(p)]
        print("  false findings:", ", ".join(wrong) or "none")
