"""Run every benchmark, print one table of ratios and targets, write benchmarks/results.md.

    python benchmarks/run.py            # the one command; a few minutes on 2 cores
    python benchmarks/run.py --quick    # every script once, tiny sizes (what the smoke test runs)

Each script runs in its own interpreter, one after the other (they would compete for the cores
otherwise), in the order of BENCHMARKS below: dispatch, cold rewrite (with its profile), per-leaf
statics, check, migrate, notebook and pytest integrations, library import, import cost,
the hook's own share of ``import jax`` (bench_hook_share.py), and a warm import against its
rewrite by hand counted in instructions under callgrind (bench_instructions.py; needs valgrind).
Every figure is a ratio of two arms measured side by side in the same run; see
each script's docstring for its arms and _timing.py for how rounds are interleaved and
summarised. A child that fails is reported and makes this command exit 1, after the others ran.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import importlib.util
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _timing import Ratio, Row, load  # noqa: E402

RESULTS = HERE / "results.md"

#: (name, script, extra arguments for a full run, the peers it compares with beyond jax, or the
#: programs it needs). Order: cheapest and least noisy first; the instruction counts last, the
#: slowest. A benchmark whose peer is missing is skipped, and says so.
#: The scripts that time JAX calls on a device (``--platform``, a device column) are ON_DEVICE.
BENCHMARKS: list[tuple[str, str, list[str], tuple[str, ...]]] = [
    ("dispatch", "bench_dispatch.py", [], ("equinox", "jax_dataclasses")),
    ("fields", "bench_fields.py", [], ("equinox",)),
    ("cold", "bench_cold.py", ["--profile"], ()),
    ("leaves", "bench_leaves.py", [], ("equinox",)),
    ("check", "bench_check.py", [], ()),
    ("migrate", "bench_migrate.py", [], ()),
    ("integrations", "bench_integrations.py", [], ("IPython", "pytest")),
    ("library", "bench_library.py", [], ()),
    ("import", "bench_import.py", [], ()),
    ("compose", "bench_compose.py", [], ("jaxtyping", "beartype", "typeguard")),
    ("runner", "bench_runner.py", [], ()),
    ("share", "bench_hook_share.py", [], ()),
    ("instructions", "bench_instructions.py", [], ("valgrind",)),
]


ON_DEVICE = ("dispatch", "fields", "leaves")


def missing_peers(peers: tuple[str, ...]) -> list[str]:
    """The peers that cannot be imported here (looked up, not imported), nor run as programs."""
    missing = []
    for peer in peers:
        try:
            found = importlib.util.find_spec(peer) is not None
        except (ImportError, ValueError):
            found = False
        found = found or shutil.which(peer) is not None
        if not found:
            missing.append(peer)
    return missing


# bench_import.py prints a header line naming its columns (`plain ms`, `hook ms`, `ratio`, ...)
# and rows `what  numbers...  [<= target ok|MISSED]`: another engineer's format, read here by
# column name rather than changed.
NUMBER = r"-?\d+(?:\.\d+)?"
IMPORT_ROW = re.compile(
    rf"^(?P<what>\s*\S.*?)\s+(?P<numbers>{NUMBER}(?:\s+{NUMBER})+)"
    rf"(?:\s+<=\s*(?P<target>{NUMBER})\s+\w+)?\s*$"
)
IMPORT_COLUMN = re.compile(r"\w+ ms|cpu \w+|ratio")
# Optional, if it prints one: `IQR of the per-round wall ratios: import jax [1.090, 1.291]; ...`
IMPORT_SPREAD = re.compile(rf"(?P<what>[^:;]+?)\s*\[(?P<low>{NUMBER}),\s*(?P<high>{NUMBER})\]")


def child_env(platform: str) -> dict[str, str]:
    env = dict(os.environ)
    if platform == "cpu":
        env.setdefault("JAX_PLATFORMS", "cpu")
    return env


def import_rows(stdout: str) -> list[Row]:
    rows: list[Row] = []
    columns: list[str] = []
    spreads: dict[str, tuple[float, float]] = {}
    for line in stdout.splitlines():
        if line.startswith("IQR") and ":" in line:
            for found in IMPORT_SPREAD.finditer(line.partition(":")[2]):
                spreads[" ".join(found["what"].split())] = (
                    float(found["low"]),
                    float(found["high"]),
                )
            continue
        first = re.search(r"\w+ ms", line)
        if first is not None and "ratio" in line[first.start() :]:
            columns = IMPORT_COLUMN.findall(line[first.start() :])  # the first column is the label
            continue
        match = IMPORT_ROW.match(line)
        if match is None or not columns:
            continue
        numbers = [float(n) for n in match["numbers"].split()]
        if len(numbers) != len(columns) or "ratio" not in columns:
            continue
        values = dict(zip(columns, numbers))
        target = float(match["target"]) if match["target"] else None
        context = ", ".join(
            f"{name} {value:g}" for name, value in values.items() if name != "ratio"
        )
        rows.append(
            Row(
                "import",
                " ".join(match["what"].split()),
                Ratio(values["ratio"], math.nan, math.nan),
                target,
                context,
            )
        )
    for row in rows:
        if row.what in spreads:
            row.ratio.low, row.ratio.high = spreads[row.what]
        row.what = "import: " + row.what
    return rows


def run_one(
    name: str,
    script: str,
    extra: list[str],
    quick: bool,
    tmp: Path,
    import_repeats: int,
    platform: str = "cpu",
) -> tuple[list[Row], str, str]:
    """Run one benchmark script; return its rows, a one-line status and its stdout."""
    command = [sys.executable, str(HERE / script)]
    json_path = tmp / f"{name}.json"
    if name == "import":
        # Its own options: its rounds for a full run (--import-repeats), and the quick rows go
        # to a scratch table instead of its history file.
        command += (
            ["--quick", "--table", str(tmp / "import_cost.md")]
            if quick
            else ["--repeats", str(import_repeats)]
        )
    else:
        command += ["--json", str(json_path)] + (["--quick"] if quick else extra)
    if name in ON_DEVICE:
        command += ["--platform", platform]
    print(f"$ {' '.join(Path(c).name if c == command[1] else c for c in command[1:])}", flush=True)
    start = time.perf_counter()
    env = child_env(platform)
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    sys.stdout.write(result.stdout)
    if result.returncode != 0:
        sys.stdout.write(result.stderr)
        return (
            [],
            f"{script}: FAILED (exit {result.returncode}) after {seconds:.0f} s",
            result.stdout,
        )
    rows = import_rows(result.stdout) if name == "import" else load(json_path)
    if not rows:
        return [], f"{script}: FAILED (no table rows found in its output)", result.stdout
    return rows, f"{script}: {len(rows)} rows in {seconds:.0f} s", result.stdout


def spread(ratio: Ratio) -> str:
    if math.isnan(ratio.low):
        return "n/a"
    return f"{ratio.low:.3f}-{ratio.high:.3f}"


def markdown(rows: list[Row]) -> str:
    lines = [
        "| what | ratio | IQR | target | device | context (not asserted) |",
        "| --- | ---: | --- | --- | --- | --- |",
    ]
    for row in rows:
        device = row.device or "host"  # what runs no JAX call (rewrite, import) runs on the host
        ratio = f"{row.ratio.median:.3f} | {spread(row.ratio)}"
        lines.append(f"| {row.what} | {ratio} | {row.verdict} | {device} | {row.context} |")
    return "\n".join(lines)


def profile_section(stdout: str) -> str:
    """The cProfile listing bench_cold.py printed after its table, if any."""
    start = stdout.find("function calls")
    if start < 0:
        return ""
    start = stdout.rfind("\n", 0, start) + 1
    return stdout[start:].strip()


def corpus_section() -> str:
    """JR006's figures over programs from public bug reports (tests/rules/dataflow_corpus),
    labelled by JAX."""
    # The test file's own folder, and tests/ for the support modules it imports.
    sys.path[:0] = [str(HERE.parent / "tests" / "rules"), str(HERE.parent / "tests")]
    import test_dataflow_corpus as corpus

    tp, fn, fp, tn = corpus.figures()
    return (
        "\n## JR006 over public bug reports (tests/rules/dataflow_corpus)\n\n"
        f"{len(corpus.CORPUS)} programs from GitHub threads, each labelled by running it "
        "under JAX: "
        f"{tp + fn} raise a trace-time error, {fp + tn} run. Findings: recall "
        f"{tp}/{tp + fn} = {tp / (tp + fn):.2f} "
        f"(target >= 0.8), precision {tp}/{tp + fp} = {tp / max(tp + fp, 1):.2f} (target 1.0). "
        f"Missed: {', '.join(corpus.missed()) or 'none'}.\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="every script once, tiny sizes: proves they run"
    )
    parser.add_argument(
        "--out", type=Path, default=RESULTS, help="markdown file to write (replaced)"
    )
    parser.add_argument(
        "--import-repeats",
        type=int,
        default=30,
        help="bench_import.py --repeats for a full run (six children a round)",
    )
    parser.add_argument(
        "--platform",
        choices=("cpu", "tpu", "gpu"),
        default="cpu",
        help="where the dispatch, fields and leaves scripts time JAX calls (their --platform)",
    )
    parser.add_argument("--skip", action="append", default=[], choices=[b[0] for b in BENCHMARKS])
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help=(
            "put the scripts' own outputs (rows as NAME.json, bench_import's import_cost.md) "
            "in this folder and keep them"
        ),
    )
    args = parser.parse_args(argv)

    started = time.perf_counter()
    all_rows: list[Row] = []
    statuses: list[str] = []
    profile = ""
    with tempfile.TemporaryDirectory() as tmp:
        scratch = args.keep or Path(tmp)
        scratch.mkdir(parents=True, exist_ok=True)
        for name, script, extra, peers in BENCHMARKS:
            if name in args.skip:
                continue
            missing = missing_peers(peers)
            if missing:
                status = f"{script}: skipped, {' and '.join(missing)} not installed"
                print(f"$ {script}: {status.partition(': ')[2]}", flush=True)
                statuses.append(status)
                continue
            rows, status, stdout = run_one(
                name, script, extra, args.quick, scratch, args.import_repeats, args.platform
            )
            all_rows += rows
            statuses.append(status)
            if name == "cold":
                profile = profile_section(stdout)
    failed = [s for s in statuses if "FAILED" in s]
    skipped = [s for s in statuses if ": skipped, " in s]
    missed = [row for row in all_rows if row.verdict.endswith("MISSED")]
    table = markdown(all_rows)

    try:  # from its metadata: importing jax here would cost this process a second or two
        jax_version = importlib.metadata.version("jax")
    except (
        importlib.metadata.PackageNotFoundError
    ):  # pragma: no cover - jax is a dependency of every benchmark
        jax_version = "?"
    load_avg = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    on_platform = "" if args.platform == "cpu" else f" --platform {args.platform}"
    header = [
        "# Benchmark results",
        "",
        (
            f"`python benchmarks/run.py{' --quick' if args.quick else ''}{on_platform}` on "
            f"{datetime.datetime.now():%Y-%m-%d %H:%M}: "
            f"Python {platform.python_version()}, jax {jax_version}, {os.cpu_count()} cores, "
            f"load average {load_avg} at the end, {time.perf_counter() - started:.0f} s in all."
        ),
        "",
        "Every ratio is `what / baseline` (as named in each row), both measured side by "
        "side in the same",
        "run: interleaved rounds, median of the per-round ratios, IQR of those ratios (see",
        "benchmarks/_timing.py; the import rows are bench_import.py's own ratios, with "
        "its IQR where it prints one).",
        "Targets are met when the median ratio is at or under the target. Absolute times "
        "are context only.",
        "",
    ]
    if args.quick:
        header += ["**--quick: tiny sizes and repeats; these figures are not measurements.**", ""]
    summary = [
        "",
        (
            f"Targets: {sum(1 for r in all_rows if r.target is not None) - len(missed)} met, "
            f"{len(missed)} missed"
        )
        + (
            ": " + "; ".join(f"{r.what} ({r.ratio.median:.3f} vs {r.target:g})" for r in missed)
            if missed
            else "."
        ),
        "",
        "Scripts: " + "; ".join(statuses) + ".",
    ]
    if skipped:
        summary += ["", "Skipped (a peer is not installed): " + "; ".join(skipped) + "."]
    text = "\n".join(header) + "\n" + table + "\n" + "\n".join(summary) + "\n"
    if profile:
        text += (
            (
                "\n## cProfile: rewrite_source on the realistic module (bench_cold.py "
                "--profile)\n\n```text\n"
            )
            + profile
            + "\n```\n"
        )
    text += corpus_section()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)

    print()
    print(table)
    print("\n".join(summary))
    print(f"written to {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
