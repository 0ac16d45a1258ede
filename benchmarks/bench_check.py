"""``jaxrewrite check`` over the installed jax and numpy sources vs ``compile()`` of the same files,
and what NotRewrittenWarning costs a rewritten module.

Rows (ratios against a baseline measured side by side in the same run, see _timing.py):

* ``check / compile``: the command's per-file work (needle tests, then the engine where the file
  may mention jaxrewrite, and the trace-time analysis, JR006, where it names a tracing
  transform) over every file, against compiling every file. Target <= 1.5.
* ``check, every file analyzed / compile``: the same files with a pragma and a Static import
  prepended, so the engine analyzes every one of them (context: what the needle saves).
* ``jaxrewrite check / ruff check``, cold and warm: the two commands as users run them side by
  side in pre-commit, over jax's installed source, each a fresh process: cold with ``--no-cache``
  (both), warm with each one's cache filled by a first run over the unchanged tree. Wall time (the
  pool and ruff's threads count) and CPU time of the children (``RUSAGE_CHILDREN``: what a busy
  shared machine's waiting does not inflate). Targets (issue 45): cold <= 3, warm <= 1. Skipped
  without ``ruff`` on PATH.
* ``pool / one process``: ``check``'s process pool against the same files in one process, at a
  few file counts around ``POOL_FROM`` (the crossover; wall time, since the point is the second
  core); ``check's choice / one process``: what ``check.workers`` picks on this machine at this
  load (one process where no core is idle), against one process.
* ``marker fetch via jaxrewrite / via jaxrewrite.markers``: executing a rewritten module that
  fetches its markers with ``from jaxrewrite import Static`` (the run-time check: one set lookup)
  against the same module fetching them from ``jaxrewrite.markers.UNCHECKED`` (no check). Target <=
  1.01.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _timing import CLOCKS, Row, dump, interleave, median, paired_ratio, print_table  # noqa: E402

from jaxrewrite import notrewritten  # noqa: E402
from jaxrewrite.commands.check import check_text, may_find  # noqa: E402
from jaxrewrite.config import Config  # noqa: E402

PREFIX = "# jaxrewrite: enable\nfrom jaxrewrite import Static\n"


def corpus(limit: int | None) -> list[tuple[str, bytes]]:
    files: list[tuple[str, bytes]] = []
    for package in ("jax", "numpy"):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations
        for root in spec.submodule_search_locations:
            paths = sorted(Path(root).rglob("*.py"))
            if limit is not None:  # --quick: the first files only, none read beyond them
                paths = paths[: limit - len(files)]
            files.extend((str(p), p.read_bytes()) for p in paths)
    return files


def check_rows(
    files: list[tuple[str, bytes]], rounds: int, clock: Callable[[], float]
) -> list[Row]:
    texts = [(path, importlib.util.decode_source(data)) for path, data in files]
    options = Config()

    def compile_all() -> float:
        start = clock()
        for path, text in texts:
            compile(text, path, "exec", dont_inherit=True)
        return clock() - start

    def check_all() -> float:
        start = clock()
        for path, data in files:
            if may_find(data):  # examine's own pre-filter
                check_text(importlib.util.decode_source(data), path, options)
        return clock() - start

    forced = [(path, PREFIX + text) for path, text in texts]

    def check_forced() -> float:
        start = clock()
        for path, text in forced:
            check_text(text, path, options)
        return clock() - start

    samples = interleave(
        {"compile": compile_all, "check": check_all, "forced": check_forced}, rounds, collect=True
    )
    traced = [
        (path, text)
        for path, data in files
        if may_find(data)
        for text in [importlib.util.decode_source(data)]
    ]
    found = sum(len(check_text(text, path, options)) for path, text in traced)
    context = f"{len(files)} files ({len(traced)} analyzed), {found} findings"

    def row(what: str, arm: str, target: float | None = None) -> Row:
        ms = f"{median(samples[arm]) * 1e3:.0f} vs {median(samples['compile']) * 1e3:.0f} ms"
        return Row(
            "check",
            what,
            paired_ratio(samples[arm], samples["compile"]),
            target,
            f"{ms}; {context}",
        )

    return [
        row("check jax+numpy (with JR006) / compile", "check", 1.5),
        row("check, every file analyzed / compile", "forced"),
    ]


MODULE = """\
# jaxrewrite: enable
import jax
from {source} import Static

{body}
"""
FUNCTION = """\
@jax.jit
def f_{i}(x, n: Static[int]):
    return x * n
"""


def warning_rows(rounds: int, clock: Callable[[], float], functions: int) -> list[Row]:
    from jaxrewrite.engine.rewrite import rewrite_source

    body = "\n\n".join(FUNCTION.format(i=i) for i in range(functions))
    codes = {}
    for source in ("jaxrewrite", "jaxrewrite.markers"):
        path = str(HERE / f"bench_check_{source.replace('.', '_')}.py")
        text = rewrite_source(MODULE.format(source=source, body=body), path)
        if source == "jaxrewrite.markers":  # the arm without the check
            text = text.replace(
                "from jaxrewrite.markers import Static",
                'from jaxrewrite.markers import UNCHECKED; Static = UNCHECKED["Static"]',
            )
        codes[source] = (path, compile(text, path, "exec", dont_inherit=True))
        notrewritten.REWRITTEN.add(path)  # what the hook does for the code it compiles

    def run(source: str) -> Callable[[], float]:
        path, code = codes[source]

        def sample() -> float:
            start = clock()
            for _ in range(20):
                exec(code, {"__name__": "bench_check_module", "__file__": path})
            return (clock() - start) / 20

        return sample

    samples = interleave(
        {"via package": run("jaxrewrite"), "direct": run("jaxrewrite.markers")},
        rounds,
        collect=True,
    )
    ms = (
        f"{median(samples['via package']) * 1e3:.3f} vs {median(samples['direct']) * 1e3:.3f} "
        "ms per module"
    )
    return [
        Row(
            "check",
            f"rewritten module ({functions} jits): marker via jaxrewrite / via "
            "jaxrewrite.markers.UNCHECKED",
            paired_ratio(samples["via package"], samples["direct"]),
            1.01,
            ms,
        )
    ]


def _command(argv: list[str], cwd: str) -> Callable[[], tuple[float, float]]:
    """A sampler of one run of ``argv``: (wall, children's CPU) seconds."""

    def sample() -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)

    return sample


def ruff_rows(rounds: int) -> list[Row]:
    ruff = shutil.which("ruff")
    if ruff is None:
        return []
    spec = importlib.util.find_spec("jax")
    assert spec is not None and spec.origin
    source = os.path.dirname(spec.origin)
    ours = [sys.executable, "-m", "jaxrewrite", "check", source]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as cwd:
        theirs = [ruff, "check", "--cache-dir", os.path.join(cwd, "ruff"), source]
        arms = {
            "ours cold": _command([*ours, "--no-cache"], cwd),
            "ruff cold": _command([*theirs, "--no-cache"], cwd),
            "ours warm": _command(ours, cwd),
            "ruff warm": _command(theirs, cwd),
        }
        arms["ours warm"]()  # fill both caches
        arms["ruff warm"]()
        samples: dict[str, list[tuple[float, float]]] = {arm: [] for arm in arms}
        for round in range(rounds):  # rotated, as _timing.interleave rotates
            order = list(arms)[round % len(arms) :] + list(arms)[: round % len(arms)]
            for arm in order:
                samples[arm].append(arms[arm]())
    for state, target in (("cold", 3.0), ("warm", 1.0)):
        for clock, at in (("wall", 0), ("cpu", 1)):
            a = [s[at] for s in samples[f"ours {state}"]]
            b = [s[at] for s in samples[f"ruff {state}"]]
            context = (
                f"{median(a) * 1e3:.0f} vs {median(b) * 1e3:.0f} ms ({clock}); jax's source, "
                "fresh processes"
            )
            rows.append(
                Row(
                    "check",
                    f"jaxrewrite check / ruff check, {state}, {clock}",
                    paired_ratio(a, b),
                    target,
                    context,
                )
            )
    return rows


def pool_rows(files: list[tuple[str, bytes]], rounds: int, counts: tuple[int, ...]) -> list[Row]:
    """Three arms per file count: a pool of 2 processes, one process, and what ``check`` itself
    chooses (``check.workers``: a process per core the load average leaves idle), each against one
    process. The pool helps only where a core is idle; the choice must never be slower than one
    process, busy machine or not."""
    from jaxrewrite.commands import check

    options = Config()
    paths = [path for path, data in files if may_find(data)]
    rows: list[Row] = []
    for count in counts:
        jobs = [(path, False) for path in paths[:count]]

        def timed(
            processes: int | None, jobs: list[tuple[str, bool]] = jobs
        ) -> Callable[[], float]:
            def sample() -> float:
                start = time.perf_counter()
                check.examine_all(jobs, options, processes=processes)
                return time.perf_counter() - start

            return sample

        before = os.getloadavg()[0]
        samples = interleave(
            {"pool": timed(2), "one": timed(1), "auto": timed(None)}, rounds, collect=True
        )
        load = (
            f"; load average {before:.1f} then {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        )
        chosen = f", check chose {check.workers(len(jobs))} process(es) at the end"
        for arm, what in (("pool", "pool of 2"), ("auto", "check's choice")):
            ms = f"{median(samples[arm]) * 1e3:.0f} vs {median(samples['one']) * 1e3:.0f} ms (wall)"
            ratio = paired_ratio(samples[arm], samples["one"])
            rows.append(
                Row(
                    "check",
                    f"{what} / one process, {count} files analyzed",
                    ratio,
                    None,
                    ms + load + chosen,
                )
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    parser.add_argument(
        "--quick", action="store_true", help="a few files, one round: proves the script runs"
    )
    parser.add_argument("--json", type=Path)
    parser.add_argument("--only", help="comma-separated groups of rows: check, ruff, pool, warning")
    args = parser.parse_args(argv)
    clock = CLOCKS[args.clock]
    rounds = 1 if args.quick else args.rounds
    files = corpus(40 if args.quick else None)
    parser_rows = (
        [row.strip() for row in args.only.split(",")]
        if args.only
        else ["check", "ruff", "pool", "warning"]
    )
    rows: list[Row] = []
    if "check" in parser_rows:
        rows += check_rows(files, rounds, clock)
    if "ruff" in parser_rows:
        rows += ruff_rows(1 if args.quick else args.rounds)
    if "pool" in parser_rows:
        rows += pool_rows(files, rounds, (8, 16) if args.quick else (16, 32, 48, 96, 192))
    if "warning" in parser_rows:
        rows += warning_rows(3 if args.quick else 41, clock, 5 if args.quick else 50)
    print_table(rows, args.quick)
    dump(rows, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
