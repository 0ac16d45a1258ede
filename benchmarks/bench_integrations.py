"""What the notebook extension and the pytest plugin cost.

Rows (ratios against a baseline measured side by side in the same run, see _timing.py):

* ``cell <kind>: extension / hand-written``: wall time of ``InteractiveShell.run_cell`` on a cell
  written with Static, the extension loaded, against the same cell written by hand (explicit
  ``static_argnums``, ``static_broadcasted_argnums``) with the extension not loaded: the extra
  latency a user sees per cell. Kinds: a cell that mentions no marker (``y = x + 1``, the common
  case: the namespace is looked up, nothing is parsed), a call of a jitted Static function
  defined in an earlier cell (the call is cached, so this is dispatch plus the cell's rewrite),
  the definition itself, and the seed's ``pmap`` call site on a def from an earlier cell.
* ``pytest --collect-only: opted-in / hand-written test file``: one ``python -m pytest
  --collect-only`` process on a test file that opts in and uses Static, against the same tests
  written with explicit ``static_argnums``; cold (no bytecode cache: every round deletes
  ``__pycache__``, so the opted-in file is rewritten and the engine imported) and warm (each
  side's own cache: jaxrewrite's pyc, pytest's pyc).
* ``pytest --collect-only: plugin on / -p no:jaxrewrite, hand-written file``: what the plugin
  costs a test file that does not opt in (loading the plugin, the finder during collection).

Clocks: a cell is timed in CPU time of the thread running it (``time.thread_time``), a pytest
process in its CPU time (user and system, every thread, from ``getrusage``): the work each arm
does, not what else the machine runs meanwhile. Collection rows time whole processes (``import
jax`` included), as a user waits for them.

Usage: python benchmarks/bench_integrations.py [--rounds N] [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from _timing import CLOCKS, Row, dump, interleave, median, paired_ratio, print_table  # noqa: E402

SETUP = """\
from functools import partial
from typing import Callable
import jax
import jax.numpy as jnp
from jaxrewrite import Static
x = 1
"""
#: (kind, cell with Static and the extension, the same cell written by hand).
CELLS = [
    ("no marker", "y = x + 1\n", "y = x + 1\n"),
    ("jit call", "out = doubler(1.0, 3)\n", "out = hand_doubler(1.0, 3)\n"),
    (
        "definition",
        "@jax.jit\ndef doubler(x, n: Static[int]):\n    for _ in range(n):\n"
        "        x = x * 2\n    return x\n",
        "@partial(jax.jit, static_argnums=(1,), static_argnames=('n',))\n"
        "def hand_doubler(x, n):\n    for _ in range(n):\n        x = x * 2\n    return x\n",
    ),
    (
        "pmap call site",
        "pmake = jax.pmap(make_hypercube, in_axes=(0, 0, None, None))\n",
        "pmake = jax.pmap(hand_make_hypercube, in_axes=(0, 0, None, None), "
        "static_broadcasted_argnums=(3,))\n",
    ),
]
DEFS = """\
def make_hypercube(a, b, c: float, c_func: Static[Callable[[float], float]]):
    return jnp.full((3, 3), a * b) ** c_func(c)

def hand_make_hypercube(a, b, c, c_func):
    return jnp.full((3, 3), a * b) ** c_func(c)
"""


def cell_rows(rounds: int, calls: int, clock: Callable[[], float] = CLOCKS["cpu"]) -> list[Row]:
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    from jaxrewrite.integrations.ipython import CellRewriter

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config)
    # One extension object, registered and withdrawn around the samples (what %load_ext and
    # %unload_ext do), so the defs it recorded stay known to the call-site cells.
    rewriter = CellRewriter(shell)
    rewriter.load()
    for cell in (SETUP, DEFS, CELLS[2][1], CELLS[2][2], CELLS[1][1], CELLS[1][2]):
        result = shell.run_cell(cell, store_history=False)
        assert result.success, result.error_before_exec or result.error_in_exec
    assert "static_broadcasted_argnums=(3,)" in shell.transform_cell(CELLS[3][1])
    loaded = True

    def arm(cell: str, load: bool) -> Callable[[], float]:
        def sample() -> float:
            nonlocal loaded
            if load != loaded:
                (rewriter.load if load else rewriter.unload)()
                loaded = load
            start = clock()
            for _ in range(calls):
                result = shell.run_cell(cell, store_history=False)
            elapsed = clock() - start
            assert result.success, result.error_before_exec or result.error_in_exec
            return elapsed / calls

        return sample

    rows = []
    for kind, ours, hand in CELLS:
        samples = interleave(
            {"ext": arm(ours, True), "hand": arm(hand, False)}, rounds, collect=True
        )
        extra = (median(samples["ext"]) - median(samples["hand"])) * 1e6
        context = (
            f"{median(samples['ext']) * 1e6:.0f} vs {median(samples['hand']) * 1e6:.0f} us "
            f"CPU/cell, extra {extra:.0f} us"
        )
        rows.append(
            Row(
                "integrations",
                f"cell {kind}: extension / hand-written",
                paired_ratio(samples["ext"], samples["hand"]),
                None,
                context,
            )
        )
    if loaded:
        rewriter.unload()
    return rows


OPTED_TESTS = """\
# jaxrewrite: enable
import jax
import jax.numpy as jnp
from jaxrewrite import Static


@jax.jit
def ones(x, n: Static[int]):
    return x * jnp.ones(n)


@jax.jit
def tile(x, n: Static[int], m: Static[int]):
    return jnp.full((n, m), x)


def test_ones():
    assert ones(2.0, 3).shape == (3,)


def test_tile():
    assert tile(1.0, 2, 3).shape == (2, 3)
"""
HAND_TESTS = """\
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(1,), static_argnames=("n",))
def ones(x, n):
    return x * jnp.ones(n)


@partial(jax.jit, static_argnums=(1, 2), static_argnames=("n", "m"))
def tile(x, n, m):
    return jnp.full((n, m), x)


def test_ones():
    assert ones(2.0, 3).shape == (3,)


def test_tile():
    assert tile(1.0, 2, 3).shape == (2, 3)
"""


def _children_cpu() -> float:
    """CPU seconds (user + system, every thread) of the child processes waited for so far: a
    process's own work, whatever else the machine is running."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def collect_rows(rounds: int, quick: bool = False) -> list[Row]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")])
        ),
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folders = {}
        for name, text in (("opted", OPTED_TESTS), ("hand", HAND_TESTS)):
            folder = root / name
            folder.mkdir()
            (folder / "test_file.py").write_text(text)
            folders[name] = folder

        def arm(name: str, cold: bool, *extra: str) -> Callable[[], float]:
            folder = folders[name]

            def sample() -> float:
                if cold:
                    shutil.rmtree(folder / "__pycache__", ignore_errors=True)
                command = [
                    sys.executable,
                    "-m",
                    "pytest",
                    "--collect-only",
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    *extra,
                    "test_file.py",
                ]
                start = _children_cpu()
                done = subprocess.run(
                    command, cwd=folder, env=env, capture_output=True, text=True, check=False
                )
                elapsed = _children_cpu() - start
                assert done.returncode == 0 and "2 tests collected" in done.stdout, (
                    done.stdout + done.stderr
                )
                return elapsed

            return sample

        if not quick:  # --quick: the cold arms go first in round 0 and leave the caches warm
            for name in folders:  # warm the OS caches and both bytecode caches once
                arm(name, False)()
        arms = {
            "opted cold": arm("opted", True),
            "hand cold": arm("hand", True),
            "opted warm": arm("opted", False),
            "hand warm": arm("hand", False),
            "hand warm, no plugin": arm("hand", False, "-p", "no:jaxrewrite"),
        }
        samples = interleave(arms, rounds)

    def row(what: str, arm_name: str, base: str) -> Row:
        context = (
            f"{median(samples[arm_name]) * 1e3:.0f} vs {median(samples[base]) * 1e3:.0f} ms "
            "CPU per process"
        )
        return Row(
            "integrations", what, paired_ratio(samples[arm_name], samples[base]), None, context
        )

    return [
        row(
            "pytest --collect-only cold: opted-in / hand-written test file",
            "opted cold",
            "hand cold",
        ),
        row(
            "pytest --collect-only warm: opted-in / hand-written test file",
            "opted warm",
            "hand warm",
        ),
        row(
            "pytest --collect-only warm: plugin on / -p no:jaxrewrite, hand-written file",
            "hand warm",
            "hand warm, no plugin",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="interleaved rounds (default 31 for cells, 9 for pytest)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="one round of each, tiny sizes: proves the script runs"
    )
    parser.add_argument(
        "--json", type=Path, default=None, help="write the rows here for benchmarks/run.py"
    )
    args = parser.parse_args(argv)
    cell_rounds = 1 if args.quick else args.rounds or 31
    collect_rounds = 1 if args.quick else args.rounds or 9
    rows = cell_rows(cell_rounds, 1 if args.quick else 50)
    rows += collect_rows(collect_rounds, args.quick)
    print_table(rows, quick=args.quick)
    dump(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
