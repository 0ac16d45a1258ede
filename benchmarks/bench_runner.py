"""The runner's warm path: ``python -m jaxrewrite script.py`` against ``python script.py``.

A script without a pragma that imports jax and an opted-in module whose rewritten code is in the
hook's cache (written by an untimed warm-up run). Arms, each a fresh interpreter timed whole by
the parent (wall clock; interleaved rounds, _timing.py; the CPU-time ratio of the child, user and
system, is given as context: on a loaded machine it is the steadier of the two):

* ``plain``: ``python plain.py``, the same script with ``jaxrewrite.install()`` at its top: what
  the hook costs without the runner (the baseline).
* ``runner``: ``python -m jaxrewrite script.py``; the child checks that ``jaxrewrite.engine`` was
  not imported (the pragma scanner is ``jaxrewrite.header``, outside it), else the benchmark fails.
* ``runner, opted-in script``: the script itself opts in and is served from the script cache
  (``hook.finder.script_code``); context, not a target.

Target: runner / plain <= 1.05. jaxrewrite is copied to a scratch folder first, so an edit to
the checkout during the run cannot change the cache tag.

Usage: python benchmarks/bench_runner.py [--rounds N] [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from _timing import Row, dump, interleave, paired_ratio, print_table  # noqa: E402

MODULE = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static


@jax.jit
def scale(x, n: Static[int]):
    return x * n
"""

BODY = """\
import sys
import jax
import optmod
loaded = sorted(m for m in sys.modules if m == "jaxrewrite.engine" or m.startswith("jaxrewrite.engine."))
if loaded and "warm-up" not in sys.argv:
    raise SystemExit(f"the engine was imported: {loaded}")
"""  # noqa: E501

SCRIPTS = {
    "plain": "import jaxrewrite\njaxrewrite.install()\n" + BODY,
    "runner": BODY,
    "opted_in": "# jaxrewrite: enable\n" + BODY,
}
COMMANDS = {
    "plain": ["plain.py"],
    "runner": ["-m", "jaxrewrite", "runner.py"],
    "opted_in": ["-m", "jaxrewrite", "opted_in.py"],
}


def lay_out(root: Path) -> dict[str, str]:
    """The scripts and the module under ``root/app``, jaxrewrite under ``root/site``; the env."""
    shutil.copytree(
        REPO / "jaxrewrite",
        root / "site" / "jaxrewrite",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    app = root / "app"
    app.mkdir()
    (app / "optmod.py").write_text(MODULE)
    for name, text in SCRIPTS.items():
        (app / f"{name}.py").write_text(text)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE")
    }
    env["JAX_PLATFORMS"] = env.get("JAX_PLATFORMS", "cpu")
    env["PYTHONPATH"] = str(root / "site")
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def arm(
    name: str, app: Path, env: dict[str, str], *args: str, cpu: list[float] | None = None
) -> Callable[[], float]:
    """One fresh interpreter per sample: its wall seconds (its CPU seconds go to ``cpu``)."""
    command = [sys.executable, *COMMANDS[name], *args]

    def sample() -> float:
        before = _children_cpu()
        start = time.perf_counter()
        done = subprocess.run(
            command, cwd=app, env=env, capture_output=True, text=True, check=False
        )
        seconds = time.perf_counter() - start
        if cpu is not None:
            cpu.append(_children_cpu() - before)
        if done.returncode != 0:
            raise SystemExit(f"arm {name!r} failed:\n{done.stdout}{done.stderr}")
        return seconds

    return sample


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21, help="fresh interpreters per arm")
    parser.add_argument("--quick", action="store_true", help="one round: proves the script runs")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rounds = 1 if args.quick else args.rounds
    with tempfile.TemporaryDirectory() as tmp:
        env = lay_out(Path(tmp))
        app = Path(tmp) / "app"
        cpu: dict[str, list[float]] = {name: [] for name in SCRIPTS}
        arms = {name: arm(name, app, env, cpu=cpu[name]) for name in SCRIPTS}
        # Untimed: writes the caches (the engine runs), warms the page cache. --quick warms only
        # what the arms need warm: optmod's cache (written by the plain script's hook, which the
        # runner shares) and the opted-in script's cache; the runner script has none.
        for name in ("plain", "opted_in") if args.quick else SCRIPTS:
            arm(name, app, env, "warm-up")()
        wall = interleave(arms, rounds)
    base = wall["plain"]

    def ms(name: str) -> str:
        cpu_ratio = paired_ratio(cpu[name], cpu["plain"]).median
        return (
            f"{statistics.median(wall[name]) * 1e3:.0f} vs "
            f"{statistics.median(base) * 1e3:.0f} ms per process, cpu ratio {cpu_ratio:.3f}"
        )

    rows = [
        Row(
            "runner",
            "runner warm: python -m jaxrewrite script.py / python script.py with install()",
            paired_ratio(wall["runner"], base),
            1.05,
            ms("runner"),
        ),
        Row(
            "runner",
            "runner warm: opted-in script from the script cache / python script.py with install()",
            paired_ratio(wall["opted_in"], base),
            None,
            ms("opted_in"),
        ),
    ]
    print_table(rows, args.quick)
    dump(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
