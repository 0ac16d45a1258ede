"""Migration: ``migrate_source`` over every .py file of the installed jax vs ``compile`` of the same files.

What ``jaxrewrite migrate`` pays per file, less reading and writing it. Arms, interleaved in one
process (garbage collected before every sample, untimed), each over the same decoded texts:

- ``compile``: ``compile(text)`` of every file: the baseline. Target: migrate <= 3 x compile.
- ``migrate``: ``migrate_source(text)`` of every file: the pre-filter, a ``compile`` for the
  SyntaxError of files with nothing to migrate, the engine's exhaustive analysis, planning and
  the round trip (the migrated text analyzed again, as the hook will) for the files with a spec.
- ``analyze``: the engine's exhaustive analysis alone, of the files the pre-filter lets through:
  how much of the migration is the engine's own reading.

Usage: python benchmarks/bench_migrate.py [--rounds N] [--clock cpu|wall] [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from _timing import CLOCKS, Row, dump, interleave, median, paired_ratio, print_table  # noqa: E402

from jaxrewrite.engine.analyze import analyze
from jaxrewrite.engine.filters import EXHAUSTIVE  # noqa: E402
from jaxrewrite.migrate import may_need_migration, migrate_source  # noqa: E402


def sources(package: str = "jax", limit: int | None = None) -> list[tuple[str, str]]:
    """(path, text) of every .py file of the installed package that compiles on this Python (the
    first ``limit`` of them, in sorted order, when given: --quick compiles no more than it uses)."""
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, f"{package} is not installed"
    found = []
    for root in spec.submodule_search_locations:
        for path in sorted(Path(root).rglob("*.py")):
            text = importlib.util.decode_source(path.read_bytes())
            try:
                compile(text, str(path), "exec", dont_inherit=True)
            except SyntaxError:
                continue  # not this Python's syntax: neither arm could do anything with it
            found.append((str(path), text))
            if len(found) == limit:
                return found
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (one sample per arm each)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    parser.add_argument("--quick", action="store_true", help="60 files, one round: proves the script runs")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON (for run.py)")
    args = parser.parse_args(argv)
    files = sources(limit=60 if args.quick else None)
    rounds = 1 if args.quick else args.rounds
    clock = CLOCKS[args.clock]
    with_spec = [(path, text) for path, text in files if may_need_migration(text)]

    migrated = changed = refused = 0
    for path, text in files:
        result = migrate_source(text, path)
        migrated += len(result.migrated)
        refused += len(result.refused)
        changed += result.changed

    def timed(work: Callable[[], object]) -> Callable[[], float]:
        def sample() -> float:
            start = clock()
            work()
            return clock() - start

        return sample

    def compile_all() -> None:
        for path, text in files:
            compile(text, path, "exec", dont_inherit=True)

    def migrate_all() -> None:
        for path, text in files:
            migrate_source(text, path)

    def analyze_spec_files() -> None:
        for path, text in with_spec:
            analyze(text, path, filters=EXHAUSTIVE, require_pragma=False)

    arms = {"compile": timed(compile_all), "migrate": timed(migrate_all), "analyze": timed(analyze_spec_files)}
    samples = interleave(arms, rounds, collect=True)
    print(
        f"# jax sources: {len(files)} files, {len(with_spec)} pass the pre-filter, {changed} migrated "
        f"({migrated} functions, {refused} refused)"
    )

    def row(what: str, arm: str, target: float | None = None) -> Row:
        context = f"{median(samples[arm]) * 1e3:.0f} vs {median(samples['compile']) * 1e3:.0f} ms"
        return Row("migrate", f"migrate jax: {what}", paired_ratio(samples[arm], samples["compile"]), target, context)

    rows = [
        row("migrate_source / compile", "migrate", 3.0),
        row("exhaustive analysis of the files with a spec / compile", "analyze"),
    ]
    print(f"# migrate: {rounds} rounds, clock={args.clock}")
    print_table(rows, args.quick)
    dump(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
