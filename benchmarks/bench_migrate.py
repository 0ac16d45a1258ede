"""Migration: ``migrate_source`` over every .py file of the installed jax vs ``compile`` of the same
files.

What ``jaxrewrite migrate`` pays per file, less reading and writing it. Arms, interleaved in one
process (garbage collected before every sample, untimed), each over the same decoded texts:

- ``compile``: ``compile(text)`` of every file: the baseline. Target: migrate <= 3 x compile.
- ``migrate``: ``migrate_source(text)`` of every file: the pre-filter, a ``compile`` for the
  SyntaxError of files with nothing to migrate, the engine's exhaustive analysis, planning and
  the round trip (the migrated text analyzed again, as the hook will) for the files with a spec.
- ``analyze``: the engine's exhaustive analysis alone, of the files the pre-filter lets through:
  how much of the migration is the engine's own reading.

And one generated module of hand-written specs (``spec_module``: four spellings in turn, about
five lines a function), to show migrate is linear in the module (issue 45: it was quadratic):

- ``migrate N``: ``migrate_source`` and the unified diff ``jaxrewrite migrate`` prints, for
  1000 and 4000 functions. Target: 4000 <= 6 x 1000 (linear is 4).
- ``check``: ``check_text`` of the same 4000-function text. Target: migrate <= 3 x check.

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

from jaxrewrite.commands.check import check_text  # noqa: E402
from jaxrewrite.config import Config  # noqa: E402
from jaxrewrite.engine.build import build_analysis  # noqa: E402
from jaxrewrite.engine.read.filters import EXHAUSTIVE  # noqa: E402
from jaxrewrite.engine.read.source import unified_diff  # noqa: E402
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


_HEAD = (
    "import functools\nfrom functools import partial\n\nimport jax\nimport jax.numpy as jnp\n\n\n"
)
_SPELLINGS = (
    "@partial(jax.jit, static_argnums=(1,))\ndef f_{i}(x, n):\n    return x * n\n",
    '@functools.partial(jax.jit, static_argnames=("mode",))\ndef g_{i}(x, mode="sum"):\n'
    '    return jnp.sum(x) if mode == "sum" else x\n',
    "def h_{i}(x, k):\n    return x + k\nh_{i}_jit = jax.jit(h_{i}, static_argnums=1)\n",
    # no spec: left alone
    "@partial(jax.vmap, in_axes=(0, None))\ndef v_{i}(x, y):\n    return x + y\n",
)


def spec_module(functions: int) -> str:
    """A module of ``functions`` defs with hand-written specs, three of every four to migrate."""
    return _HEAD + "\n\n".join(
        _SPELLINGS[i % len(_SPELLINGS)].format(i=i) for i in range(functions)
    )


def migrate_and_diff(text: str) -> str:
    """What ``jaxrewrite migrate`` computes for one file it prints the diff of."""
    result = migrate_source(text, "m.py")
    return unified_diff(text, result.text, "m.py", result.changes)


def timer(clock: Callable[[], float]) -> Callable[[Callable[[], object]], Callable[[], float]]:
    """An arm for ``interleave``: one sample is one call of ``work`` on ``clock``."""

    def timed(work: Callable[[], object]) -> Callable[[], float]:
        def sample() -> float:
            start = clock()
            work()
            return clock() - start

        return sample

    return timed


def scaling_rows(small: int, large: int, rounds: int, clock: Callable[[], float]) -> list[Row]:
    """migrate of ``large`` functions against ``small`` (linear: large / small), and against
    ``check`` of the same ``large``-function text, side by side in one run."""
    texts = {"small": spec_module(small), "large": spec_module(large)}
    timed = timer(clock)

    arms = {
        "small": timed(lambda: migrate_and_diff(texts["small"])),
        "large": timed(lambda: migrate_and_diff(texts["large"])),
        "check": timed(lambda: check_text(texts["large"], "m.py", Config())),
    }
    samples = interleave(arms, rounds, collect=True)
    ms = {arm: f"{median(samples[arm]) * 1e3:.0f}" for arm in arms}
    lines = texts["large"].count("\n")
    return [
        Row(
            "migrate",
            f"migrate {large} / {small} functions (linear: {large / small:g})",
            paired_ratio(samples["large"], samples["small"]),
            1.5 * large / small,
            f"{ms['large']} vs {ms['small']} ms, {lines} lines",
        ),
        Row(
            "migrate",
            f"migrate / check, {large} functions",
            paired_ratio(samples["large"], samples["check"]),
            3.0,
            f"{ms['large']} vs {ms['check']} ms",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int, default=7, help="interleaved rounds (one sample per arm each)"
    )
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    parser.add_argument(
        "--quick", action="store_true", help="60 files, one round: proves the script runs"
    )
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
    timed = timer(clock)

    def compile_all() -> None:
        for path, text in files:
            compile(text, path, "exec", dont_inherit=True)

    def migrate_all() -> None:
        for path, text in files:
            migrate_source(text, path)

    def analyze_spec_files() -> None:
        for path, text in with_spec:
            build_analysis(text, path, filters=EXHAUSTIVE, require_pragma=False)

    arms = {
        "compile": timed(compile_all),
        "migrate": timed(migrate_all),
        "analyze": timed(analyze_spec_files),
    }
    samples = interleave(arms, rounds, collect=True)
    print(
        f"# jax sources: {len(files)} files, {len(with_spec)} pass the pre-filter, "
        f"{changed} migrated "
        f"({migrated} functions, {refused} refused)"
    )

    def row(what: str, arm: str, target: float | None = None) -> Row:
        context = f"{median(samples[arm]) * 1e3:.0f} vs {median(samples['compile']) * 1e3:.0f} ms"
        return Row(
            "migrate",
            f"migrate jax: {what}",
            paired_ratio(samples[arm], samples["compile"]),
            target,
            context,
        )

    rows = [
        row("migrate_source / compile", "migrate", 3.0),
        row("exhaustive analysis of the files with a spec / compile", "analyze"),
    ]
    small, large = (50, 200) if args.quick else (1000, 4000)
    rows += scaling_rows(small, large, rounds, clock)
    print(f"# migrate: {rounds} rounds, clock={args.clock}")
    print_table(rows, args.quick)
    dump(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
