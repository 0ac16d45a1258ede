"""Every benchmark runs, quickly, so none can rot. Timings are printed, never asserted.

Each check reads one ``python benchmarks/run.py --quick`` run of one script (``--skip`` for the
others), so that pytest-xdist spreads the scripts over the workers; the run of two scripts
(dispatch and cold) also checks that run.py merges their rows into one table with the profile
section. Each run happens once per session (``quick_run``): the checks that read the same run
share an ``xdist_group``, so they land on the worker that made it. run.py keeps the scripts' own
outputs (``--keep``): bench_import's table and bench_hook_share's JSON rows are checked there.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


class QuickRun:
    def __init__(self, result: subprocess.CompletedProcess[str], results: Path, kept: Path) -> None:
        self.result = result
        self.stdout = result.stdout
        self.results = results
        #: The scripts' own outputs (run.py --keep): NAME.json, import_cost.md.
        self.kept = kept

    def explain(self) -> str:
        return self.result.stdout[-4000:] + self.result.stderr[-4000:]


#: run.py's names for its scripts (``--skip NAME``), keyed by script file.
NAMES = {
    "bench_dispatch.py": "dispatch",
    "bench_fields.py": "fields",
    "bench_cold.py": "cold",
    "bench_leaves.py": "leaves",
    "bench_check.py": "check",
    "bench_migrate.py": "migrate",
    "bench_integrations.py": "integrations",
    "bench_library.py": "library",
    "bench_import.py": "import",
    "bench_compose.py": "compose",
    "bench_runner.py": "runner",
    "bench_hook_share.py": "share",
    "bench_instructions.py": "instructions",
}

#: Which run.py run each script's checks read: the two-script run for dispatch and cold, else
#: the script alone.
RUN_OF = {name: (name,) for name in NAMES.values()} | {
    "dispatch": ("dispatch", "cold"),
    "cold": ("dispatch", "cold"),
}


def quick(tmp_path: Path, *names: str) -> QuickRun:
    """``run.py --quick`` over the scripts ``names`` only."""
    results, kept = tmp_path / "results.md", tmp_path / "kept"
    skips = [arg for other in NAMES.values() if other not in names for arg in ("--skip", other)]
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "run.py"),
            "--quick",
            "--out",
            str(results),
            "--keep",
            str(kept),
            *skips,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "JAX_PLATFORMS": "cpu"},
        cwd=REPO,
    )
    return QuickRun(result, results, kept)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], QuickRun]:
    """The run.py run that covers script ``name`` (``RUN_OF``), made on first use and kept."""
    runs: dict[tuple[str, ...], QuickRun] = {}

    def get(name: str) -> QuickRun:
        names = RUN_OF[name]
        if names not in runs:
            runs[names] = quick(tmp_path_factory.mktemp("quick-" + "-".join(names)), *names)
        return runs[names]

    return get


def grouped(name: str) -> pytest.MarkDecorator:
    """The xdist group of the checks that read the run covering ``name``."""
    return pytest.mark.xdist_group("bench-" + "-".join(RUN_OF[name]))


def test_names_are_run_pys_own() -> None:
    """The table above names every script run.py runs, by run.py's own names."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import run  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    assert {script: name for name, script, *_ in run.BENCHMARKS} == NAMES


@grouped("dispatch")
def test_run_exits_zero_and_writes_one_table(quick_run: Callable[[str], QuickRun]) -> None:
    run = quick_run("dispatch")
    assert run.result.returncode == 0, run.explain()
    text = run.results.read_text()
    assert "| what | ratio | IQR | target |" in text
    assert "--quick" in text and "Targets:" in text
    for prefix in ("dispatch:", "cold realistic:", "cold dense:"):
        assert f"| {prefix}" in text, (prefix, text)
    assert "rewrite_source" in text  # bench_cold's profile section


def script(name: str, *rows: str) -> object:
    return pytest.param(name, list(rows), marks=grouped(NAMES[name]), id=name)


@grouped("dispatch")
def test_rows_name_the_device_they_measured(quick_run: Callable[[str], QuickRun]) -> None:
    run = quick_run("dispatch")
    assert "| target | device | context" in run.results.read_text()
    rows = [line for line in run.results.read_text().splitlines() if line.startswith("| dispatch:")]
    assert rows and all(" | cpu | " in line for line in rows), rows
    cold = [line for line in run.results.read_text().splitlines() if line.startswith("| cold ")]
    assert cold and all(" | host | " in line for line in cold), cold


def _timing_module() -> object:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import _timing
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    return _timing


def test_a_coarse_clock_grows_the_batch_and_never_reads_zero() -> None:
    """A clock that reads in steps of 2 ms (the TPU host's thread clock read in 10 ms steps):
    one call per batch reads 0 on it; the harness measures the step and runs each batch until
    it reads ``READINGS`` steps, so every sample is a true time and every ratio defined."""
    timing: Any = _timing_module()
    step = 0.002

    def coarse() -> float:
        return math.floor(time.perf_counter() / step) * step

    def work() -> int:
        return sum(range(100))

    # The step, or on a loaded machine a whole multiple of it (every read preempted across a
    # step): never less than the step, which is what keeps a batch from reading zero.
    steps = timing.resolution(coarse) / step
    assert steps >= 0.999 and steps == pytest.approx(round(steps), abs=1e-6), steps
    floor = timing.READINGS * step
    calls = timing.calibrate(work, 0.0001, coarse)  # asked for 0.1 ms: far under one step
    start = time.perf_counter()
    for _ in range(calls):
        work()
    # About READINGS steps, not 0.1 ms. A tenth of it: calibrating on a loaded machine (reads
    # preempted) picks fewer calls than a quiet moment then needs (92 ms of 200 in one CI run).
    assert time.perf_counter() - start > floor / 10
    one, same = timing.per_call(work, 1, coarse), timing.per_call(work, 1, coarse)
    a, b = [one() for _ in range(3)], [same() for _ in range(3)]
    assert all(0 < x < floor for x in a + b), (a, b)
    assert 0.1 < timing.paired_ratio(a, b).median < 10


def test_platform_is_checked_and_the_harness_runs_its_text_quietly() -> None:
    """``--platform tpu`` where JAX runs on the CPU stops before a row is credited to a TPU; the
    rewritten modules the harness runs raise no NotRewrittenWarning (their text is registered)."""
    script = str(REPO / "benchmarks" / "bench_dispatch.py")
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, script, "--quick", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)

    refused = run("--platform", "tpu")
    assert refused.returncode != 0, refused.stderr
    assert "--platform tpu: JAX runs on cpu" in refused.stderr, refused.stderr
    done = run()
    assert done.returncode == 0, done.stderr
    assert "[cpu]" in done.stdout and "device=cpu" in done.stdout
    assert "NotRewrittenWarning" not in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("script", "rows"),
    [
        script(
            "bench_dispatch.py",
            "dispatch: jaxrewrite / hand jax.jit ",
            "dispatch: equinox.filter_jit / hand jax.jit",
        ),
        script(
            "bench_fields.py",
            "fields: jaxrewrite Static / hand eqx.field(static=True), eqx.filter_jit",
            "fields: jaxrewrite Static / hand eqx.field(static=True), jax.jit",
        ),
        script(
            "bench_cold.py",
            "cold realistic: rewrite+compile / compile",
            "cold dense: floor parse+compile / compile",
        ),
        script(
            "bench_leaves.py",
            "jaxrewrite / equinox.filter_jit",
            "split alone: S=",
            "overhead over JAX: N=",
        ),
        script(
            "bench_check.py",
            "check jax+numpy (with JR006) / compile",
            "marker via jaxrewrite / via jaxrewrite.markers",
            "check's choice / one process, 8 files analyzed",
        ),
        script(
            "bench_library.py",
            "library import (jax included): prebuilt cache / by hand",
            "library import after jax: read-only, no compile",
        ),
        script(
            "bench_compose.py", "compose warm import, typeguard: composed / by hand under typeguard"
        ),
        script(
            "bench_integrations.py",
            "cell definition: extension / hand-written",
            "pytest --collect-only cold: opted-in / hand-written test file",
        ),
    ],
)
def test_script_ran_and_printed_its_rows(
    quick_run: Callable[[str], QuickRun], script: str, rows: list[str]
) -> None:
    run = quick_run(NAMES[script])
    assert run.result.returncode == 0, run.explain()
    table = run.results.read_text()
    assert table.count("\n| ") >= 2, table  # the header and at least one row of this script
    section = run.stdout.partition(f"$ {script} ")[2]
    assert section, f"{script} was not run:\n{run.explain()}"
    section = section.split("\n$ ", 1)[0]
    assert "FAILED" not in section, section
    for row in rows:
        assert row in section, (row, section)
    assert "ratio [IQR]" in section and "(--quick:" in section


@pytest.mark.parametrize(
    ("name", "rows"),
    [
        pytest.param(name, rows, marks=grouped(name), id=name)
        for name, rows in [
            (
                "migrate",
                [
                    "| migrate jax: migrate_source / compile",
                    "| migrate 200 / 50 functions (linear: 4)",
                    "| migrate / check, 200 functions",
                ],
            ),
            ("import", ["| import: import jax", "| import: opted-in module, warm cache"]),
            ("share", ["| hook share of import jax, runner: hook self time / import jax"]),
            (
                "runner",
                ["| runner warm: python -m jaxrewrite script.py / python script.py with install()"],
            ),
        ]
    ],
)
def test_table_only_scripts_run_and_fill_the_table(
    quick_run: Callable[[str], QuickRun], name: str, rows: list[str]
) -> None:
    """The scripts whose rows run.py reads from their own output format: checked in the table."""
    run = quick_run(name)
    assert run.result.returncode == 0, run.explain()
    table = run.results.read_text()
    for row in rows:
        assert row in table, (row, table)


# -- what the import-cost scripts write themselves (the same runs, read from run.py --keep) --------


@grouped("import")
def test_bench_import_runs_and_writes_a_table_row(quick_run: Callable[[str], QuickRun]) -> None:
    """bench_import.py --quick --table: its rows printed, one row appended under a new header."""
    run = quick_run("import")
    assert run.result.returncode == 0, run.explain()
    section = run.stdout.partition("$ bench_import.py --quick --table ")[2].split("\n$ ", 1)[0]
    assert "import jax" in section and "opted-in module" in section, section
    lines = (run.kept / "import_cost.md").read_text().splitlines()
    assert lines[0].startswith("| date |") and len(lines) == 3 and "(quick)" in lines[2]


@grouped("share")
def test_bench_hook_share_runs_and_writes_its_rows(quick_run: Callable[[str], QuickRun]) -> None:
    """The in-process share of ``import jax`` under the runner's hook: one child, rows as JSON."""
    run = quick_run("share")
    assert run.result.returncode == 0, run.explain()
    rows = json.loads((run.kept / "share.json").read_text())
    assert [row["what"].split(",")[1].split(":")[0].strip() for row in rows] == ["runner"]
    assert [row["target"] for row in rows] == [0.005]
    assert all(0 < row["ratio"]["median"] < 1 for row in rows), rows
    section = run.stdout.partition("$ bench_hook_share.py ")[2].split("\n$ ", 1)[0]
    assert "(--quick:" in section, section


@grouped("instructions")
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_bench_instructions_counts_both_arms(quick_run: Callable[[str], QuickRun]) -> None:
    """The warm import against its rewrite by hand, in instructions under callgrind: one row with
    its target, both arms counted (a stripped interpreter counts nothing and stops the script)."""
    run = quick_run("instructions")
    assert run.result.returncode == 0, run.explain()
    rows = json.loads((run.kept / "instructions.json").read_text())
    assert [row["target"] for row in rows] == [1.03]
    assert 0.5 < rows[0]["ratio"]["median"] < 5, rows
    section = run.stdout.partition("$ bench_instructions.py ")[2].split("\n$ ", 1)[0]
    assert "instructions per import, hook / by hand" in section and "(--quick:" in section


def test_the_import_benchmarks_children_import_the_jaxrewrite_they_name(tmp_path: Path) -> None:
    """A ``python -c`` child puts its working folder first on ``sys.path``: started in the
    checkout, it imports the checkout's jaxrewrite whatever ``PYTHONPATH`` names (the "installed"
    rows measured the checkout that way until 2026-12-04). The children run in a folder outside
    the checkout, and a child that imports another jaxrewrite than the one named stops the
    benchmark before it prints a row."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import _installed
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    assert not Path(_installed.away()).resolve().is_relative_to(REPO.resolve()) and not os.listdir(
        _installed.away()
    )
    elsewhere = tmp_path / "site" / "jaxrewrite"
    elsewhere.mkdir(parents=True)
    (elsewhere / "__init__.py").write_text("")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    _installed.check_imported_from(
        str(tmp_path / "site"), {**env, "PYTHONPATH": str(tmp_path / "site")}
    )
    with pytest.raises(SystemExit, match="not from"):
        _installed.check_imported_from(str(tmp_path / "site"), {**env, "PYTHONPATH": str(REPO)})
    # The mistake it guards against, shown: the same child started in the checkout.
    started_here = subprocess.run(
        [sys.executable, "-c", "import jaxrewrite; print(jaxrewrite.__file__)"],
        cwd=REPO,
        env={**env, "PYTHONPATH": str(tmp_path / "site")},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert Path(started_here.stdout.strip()).resolve().is_relative_to(REPO.resolve())
