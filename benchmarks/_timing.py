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
``time.perf_counter``. A clock's resolution is measured, not assumed (the thread clock read in
steps of 10 ms on a TPU host): every timed batch runs until it reads at least ``READINGS``
steps of its clock, so no sample reads zero and a coarse clock costs longer batches, not
wrong ratios.

Platforms: ``--platform cpu`` (the default) sets ``JAX_PLATFORMS=cpu`` unless it is set;
``tpu`` and ``gpu`` leave the choice to JAX and stop the run if JAX picked another. Each row
names the device it measured (``Row.device``).
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import linecache
import os
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
#: A timed batch reads at least this many steps of its clock: the reading is then off by at
#: most 1 % from the rounding of the clock.
READINGS = 100
PLATFORMS = ("cpu", "tpu", "gpu")


def add_device_options(parser: argparse.ArgumentParser) -> None:
    """``--platform`` and ``--clock``, as the scripts that time JAX calls take them."""
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    parser.add_argument(
        "--platform",
        choices=PLATFORMS,
        default="cpu",
        help="cpu sets JAX_PLATFORMS=cpu unless it is set; tpu and gpu leave it to JAX, which must"
        " pick that one",
    )


def use_platform(platform: str) -> None:
    """Before JAX is imported: the platform ``--platform`` asks for."""
    if platform == "cpu":
        os.environ.setdefault("JAX_PLATFORMS", "cpu")


def device_kind(platform: str) -> str:
    """What the run measures (``cpu``, ``tpu: TPU v5 lite``); stops the run where JAX picked
    another platform than ``platform``, so no row is credited to a device it did not run on."""
    import jax

    device = jax.devices()[0]
    if device.platform != platform:
        raise SystemExit(
            f"--platform {platform}: JAX runs on {device.platform} ({device.device_kind}), "
            f"JAX_PLATFORMS={os.environ.get('JAX_PLATFORMS')!r}"
        )
    return "cpu" if platform == "cpu" else f"{platform}: {device.device_kind}"


def run_text(text: str, filename: str, namespace: dict[str, Any]) -> dict[str, Any]:
    """Run rewritten module text in ``namespace``, its text registered where Python keeps the
    text of code without a file (``linecache``), so jaxrewrite reads that it was rewritten (no
    NotRewrittenWarning) and tracebacks show its lines."""
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), namespace)
    return namespace


@functools.cache
def resolution(clock: Callable[[], float]) -> float:
    """The step the clock reads in: the least of five steps, each timed from one change of its
    reading to the next (a fine clock's steps are the loop's own time, an upper bound; a loop
    preempted on a loaded machine can only see a step too long, never too short)."""
    steps = []
    for _ in range(5):
        start = clock()
        while (first := clock()) == start:
            pass
        while (now := clock()) == first:
            pass
        steps.append(now - first)
    return min(steps)


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
    """An arm: ``calls`` calls of ``fn`` in a plain loop, timed together; seconds per call. The
    batch runs again until the clock reads at least ``READINGS`` of its steps.

    ``finish`` is applied to the last result before the clock stops (e.g. block_until_ready,
    so that work still queued by an asynchronous dispatch is paid inside the batch that
    queued it, not by whichever arm runs next).
    """
    loop = range(calls)
    floor = READINGS * resolution(clock)

    def sample() -> float:
        done = 0
        start = clock()
        while True:
            result = None
            for _ in loop:
                result = fn()
            if finish is not None:
                finish(result)
            done += calls
            spent = clock() - start
            if spent >= floor:
                return spent / done

    return sample


def calibrate(
    fn: Callable[[], Any], seconds: float, clock: Callable[[], float], minimum: int = 1
) -> int:
    """How many calls of ``fn`` take about ``seconds`` on ``clock`` (at least ``minimum``), or
    as many as read ``READINGS`` steps of a coarse clock, when that is more."""
    seconds = max(seconds, READINGS * resolution(clock))
    calls = 1
    while True:
        start = clock()
        for _ in range(calls):
            fn()
        spent = clock() - start
        if spent >= seconds / 10 or calls >= 1 << 22:
            break
        calls *= 4
    return max(minimum, int(calls * seconds / max(spent, resolution(clock))))


@dataclass
class Row:
    """One line of the results table: ``what`` (arm) / ``baseline`` is ``ratio``."""

    bench: str
    what: str
    ratio: Ratio
    target: float | None = None  # met when ratio.median <= target
    context: str = ""  # absolute medians etc.: printed, never asserted
    device: str = ""  # what JAX ran on (device_kind), for the rows that time JAX calls

    @property
    def verdict(self) -> str:
        if self.target is None:
            return ""
        met = self.ratio.median <= self.target
        return f"<= {self.target:g} {'met' if met else 'MISSED'}"


HEADER = f"{'what':58} {'ratio [IQR]':>22}  {'target':16} context"


def format_row(row: Row) -> str:
    device = f" [{row.device}]" if row.device else ""
    return f"{row.what:58} {row.ratio!s:>22}  {row.verdict:16} {row.context}{device}"


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
