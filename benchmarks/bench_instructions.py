"""Warm import of an opted-in module vs its rewrite written by hand, counted in instructions.

bench_import.py's wall-clock row for this moves by more than its 3 % margin on a shared machine;
an instruction count does not depend on load. Each arm is a fresh interpreter under ``valgrind
--tool=callgrind`` that imports jax and jaxrewrite, then the module inside ``sys.call_tracing``
(a C function nothing else calls): callgrind counts that call alone (``--toggle-collect``).
hook: bench_import.py's 24-function module through the hook, from its warm pyc; by hand: its
rewrite saved as an ordinary module, from its own warm pyc. Both caches are written first and
must not change. Repetition i runs both arms with ``PYTHONHASHSEED=i``; the ratio is the median
of the per-seed ratios hook / by hand. Target (issue 51): <= 1.03.

Usage: python benchmarks/bench_instructions.py [--repeats N] [--quick] [--json PATH] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_import  # noqa: E402
from _installed import away, check_imported_from  # noqa: E402
from _timing import Row, dump, paired_ratio, print_table  # noqa: E402

from jaxrewrite.engine.rewrite import rewrite_source  # noqa: E402

TARGET = 1.03
WHAT = "import: opted-in module, warm, vs the rewrite written by hand (instructions)"

CHILD = """\
import gc, sys, jaxrewrite
{preamble}
gc.disable()  # as bench_import.py's children: no collection inside the counted import
sys.call_tracing(__import__, ({module!r},))
"""

#: --quick: a module with no jax, so that the children take seconds under valgrind, not minutes.
TINY = """\
# jaxrewrite: enable
from jaxrewrite.markers import Static  # as the realistic module has it (no jax: nothing to mark)


def step(x, n):
    return x * n
"""


def children(quick: bool) -> dict[str, str]:
    """The arms' child code; the hook arm installs the hook before the counted import."""
    jax = "" if quick else "import jax\n"
    return {
        "hook": CHILD.format(preamble=jax + "jaxrewrite.install()", module="bench_hooked"),
        "by hand": CHILD.format(preamble=jax, module="bench_by_hand"),
    }


def write_modules(folder: str, quick: bool) -> None:
    text = TINY if quick else bench_import.opted_in_module()
    Path(folder, "bench_hooked.py").write_text(text)
    by_hand = rewrite_source(text, "bench_by_hand.py")
    Path(folder, "bench_by_hand.py").write_text(bench_import.unchecked(by_hand))


def cache_state(folder: str) -> dict[str, int]:
    """The pycs under ``folder`` and their mtimes: a measured import must write none."""
    cache = Path(folder, "__pycache__")
    return {p.name: p.stat().st_mtime_ns for p in cache.iterdir()} if cache.is_dir() else {}


def count(code: str, env: dict[str, str], seed: int, out: str) -> int:
    """The instructions callgrind counted inside the child's ``sys.call_tracing`` call."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--collect-atstart=no",
        "--toggle-collect=sys_call_tracing",
        f"--callgrind-out-file={out}",
        sys.executable,
        "-c",
        code,
    ]
    done = subprocess.run(
        command,
        env={**env, "PYTHONHASHSEED": str(seed)},
        cwd=away(),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"benchmark child failed under valgrind:\n{done.stderr[-4000:]}")
    found = re.search(r"^totals: (\d+)", Path(out).read_text(), re.MULTILINE)
    if found is None or int(found[1]) == 0:
        raise SystemExit(
            f"callgrind counted nothing in sys_call_tracing ({out}): is {sys.executable}'s "
            "interpreter stripped of its symbols?"
        )
    return int(found[1])


def measure(repeats: int, quick: bool, workers: int, keep: Path | None) -> dict[str, list[int]]:
    """Each arm's count per seed 0..repeats-1. The children run side by side: a count does not
    depend on what else runs. ``keep``: a folder for callgrind's files (callgrind_annotate)."""
    arms = children(quick)
    with tempfile.TemporaryDirectory() as tmp:
        outs = keep or Path(tmp)
        outs.mkdir(parents=True, exist_ok=True)
        write_modules(tmp, quick)
        env = bench_import.child_env(tmp)  # without PYTHONDONTWRITEBYTECODE: the caches warm
        check_imported_from(bench_import.PACKAGE_ROOT, env)
        for code in arms.values():
            subprocess.run([sys.executable, "-c", code], env=env, cwd=away(), check=True)
        warm = cache_state(tmp)
        hooked = [name for name in warm if ".opt-jaxrewrite" in name]
        if len(warm) != 2 or len(hooked) != 1:
            raise SystemExit(f"the warm-up did not write one pyc per arm: {sorted(warm)}")
        jobs = [(name, seed) for seed in range(repeats) for name in arms]

        def one(job: tuple[str, int]) -> int:
            name, seed = job
            return count(
                arms[name], env, seed, str(outs / f"callgrind.{name.replace(' ', '-')}.{seed}")
            )

        with ThreadPoolExecutor(max_workers=workers) as pool:
            counts = list(pool.map(one, jobs))
        found: dict[str, list[int]] = {name: [] for name in arms}
        for (name, _), n in zip(jobs, counts):
            found[name].append(n)
        if cache_state(tmp) != warm:
            raise SystemExit(f"a measured import wrote its cache: {warm} -> {cache_state(tmp)}")
    return found


def row(found: dict[str, list[int]], quick: bool) -> Row:
    hook, hand = found["hook"], found["by hand"]
    what = WHAT.replace("opted-in module", "tiny module, no jax") if quick else WHAT
    per_seed = ", ".join(f"{h:,} / {b:,}" for h, b in zip(hook, hand))
    context = f"instructions per import, hook / by hand, seeds 0-{len(hook) - 1}: {per_seed}"
    return Row("instructions", what, paired_ratio(hook, hand), TARGET, context)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="seeds (two children each)")
    parser.add_argument(
        "--quick", action="store_true", help="one seed, a tiny module without jax: proves it runs"
    )
    parser.add_argument("--json", type=Path, help="write the row here (benchmarks/run.py)")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="children run side by side"
    )
    parser.add_argument("--keep", type=Path, help="keep callgrind's files in this folder")
    parser.add_argument(
        "--checkout",
        action="store_true",
        help="import jaxrewrite from this checkout, not from a wheel of it installed (the default)",
    )
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    wheel = tempfile.TemporaryDirectory()
    if not args.checkout:
        bench_import.use_installed(wheel.name)
    print(f"jaxrewrite imported from {bench_import.PACKAGE_ROOT}; {sys.executable}")
    found = measure(1 if args.quick else args.repeats, args.quick, args.workers, args.keep)
    table = [row(found, args.quick)]
    print_table(table, quick=args.quick)
    dump(table, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
