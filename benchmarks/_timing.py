"""Shared timing helpers: interleaved arms, paired per-round ratios, medians, one row format.

Every figure a benchmark reports is a ratio of two arms measured side by side in the same
process and the same run. Arms are sampled in rounds; each round samples every arm once, and
the order rotates from round to round, so slow drift and a neighbour's burst of load fall on
all arms alike. A ratio is the median of the per-round ratios arm/baseline (paired, so a round
that was slow for everyone still gives a fair ratio), with the interquartile range of those
per-round ratios as its spread. Absolute medians are printed for context only; nothing is
ever asserted about them.

Clocks: ``cpu`` is ``time.thread_time`` (CPU time of the calling thread: time spent preempted by
other processes on a shared machine does not count, and neither do JAX's worker threads, which
run the same executable in every arm); ``process`` is ``time.process_time``; ``wall`` is
``time.perf_counter``.
"""

from __future__ import annotations

import gc
import json
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

CLOCKS: dict[str, Callable[[], float]] = {
    "cpu": time.thread_time,
    "process": time.process_time,
    "wall": time.perf_counter,
}


def interleave(
    arms: dict[str, Callable[[], float]],
    rounds: int,
    *,
    collect: bool = False,
) -> dict[str, list[float]]:
    """Call every arm once per round, rotating which goes first; return the samples per arm.

    An arm is a zero-argument callable returning one sample (seconds, or seconds per call).
    Sample ``i`` of every arm comes from round ``i``, so samples can be paired by index.
    With ``collect``, a full garbage collection runs (untimed) before every sample.
    """
    names = list(arms)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for i in range(rounds):
        k = i % len(names)
        for name in names[k:] + names[:k]:
            if collect:
                gc.collect()
            samples[name].append(arms[name]())
    return samples


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """(first quartile, median, third quartile); all three equal for a single value."""
    if len(values) < 2:
        v = values[0]
        return v, v, v
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, statistics.median(values), q3


@dataclass
class Ratio:
    """Median of per-round ratios with its interquartile range."""

    median: float
    low: float
    high: float

    def __str__(self) -> str:
        if self.low != self.low:  # NaN: no spread known
            return f"{self.median:.3f} [n/a]"
        return f"{self.median:.3f} [{self.low:.3f}-{self.high:.3f}]"


def paired_ratio(arm: Sequence[float], base: Sequence[float]) -> Ratio:
    """Per-round ratios arm[i] / base[i], summarised as median and interquartile range."""
    low, median, high = quartiles([a / b for a, b in zip(arm, base)])
    return Ratio(median, low, high)


def paired_difference(arm: Sequence[float], base: Sequence[float]) -> float:
    """Median of per-round differences arm[i] - base[i] (same unit as the samples)."""
    return statistics.median(a - b for a, b in zip(arm, base))


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))


def per_call(
    fn: Callable[[], Any],
    calls: int,
    clock: Callable[[], float],
    finish: Callable[[Any], Any] | None = None,
) -> Callable[[], float]:
    """An arm: ``calls`` calls of ``fn`` in a plain loop, timed together; seconds per call.

    ``finish`` is applied to the last result before the clock stops (e.g. block_until_ready,
    so that work still queued by an asynchronous dispatch is paid inside the batch that
    queued it, not by whichever arm runs next).
    """
    loop = range(calls)

    def sample() -> float:
        result = None
        start = clock()
        for _ in loop:
            result = fn()
        if finish is not None:
            finish(result)
        return (clock() - start) / calls

    return sample


def calibrate(fn: Callable[[], Any], seconds: float, clock: Callable[[], float], minimum: int = 1) -> int:
    """How many calls of ``fn`` take about ``seconds`` on ``clock`` (at least ``minimum``)."""
    calls = 1
    while True:
        start = clock()
        for _ in range(calls):
            fn()
        spent = clock() - start
        if spent >= seconds / 10 or calls >= 1 << 22:
            break
        calls *= 4
    return max(minimum, int(calls * seconds / max(spent, 1e-9)))


@dataclass
class Row:
    """One line of the results table: ``what`` (arm) / ``baseline`` is ``ratio``."""

    bench: str
    what: str
    ratio: Ratio
    target: float | None = None  # met when ratio.median <= target
    context: str = ""  # absolute medians etc.: printed, never asserted

    @property
    def verdict(self) -> str:
        if self.target is None:
            return ""
        met = self.ratio.median <= self.target
        return f"<= {self.target:g} {'met' if met else 'MISSED'}"


HEADER = f"{'what':58} {'ratio [IQR]':>22}  {'target':16} context"


def format_row(row: Row) -> str:
    return f"{row.what:58} {row.ratio!s:>22}  {row.verdict:16} {row.context}"


def print_table(rows: Sequence[Row], quick: bool = False) -> None:
    print(HEADER)
    for row in rows:
        print(format_row(row))
    if quick:
        print("(--quick: tiny sizes and repeats; these figures are not measurements)")


def dump(rows: Sequence[Row], path: Path | None) -> None:
    """Write the rows as JSON for benchmarks/run.py (nothing when ``path`` is None)."""
    if path is None:
        return
    path.write_text(json.dumps([asdict(row) for row in rows], indent=1))


def load(path: Path) -> list[Row]:
    rows = []
    for item in json.loads(path.read_text()):
        item["ratio"] = Ratio(**item["ratio"])
        rows.append(Row(**item))
    return rows
