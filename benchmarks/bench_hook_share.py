"""The import hook's own share of ``import jax``, measured inside the importing process.

Why in process: the hook's share of a 500 ms import is far below what two wall-clock imports in
fresh interpreters (bench_import.py's ``import jax`` row) can resolve on a shared machine. Each
child installs the hook as the runner does (``install()``, no package named: the user's files
only), times its ``find_spec`` and, separately, the finders after it on ``sys.meta_path``
(wrapped as one, asked in turn as importlib asks them) while the hook is asking them, then
imports jax. The hook's self time is its time minus the time of the finders it delegated to,
minus what the timer costs per delegated call (calibrated in the same child after the import),
and minus the garbage collections that happened to start in the hook's own code. It reads no file
of jax (issue 51: the installation is out of its scope), so nothing runs in a loader. Its share
is that self time over the whole ``import jax``: one figure per child; the row gives the median
and IQR. Every child has its own bytecode cache folder (``PYTHONPYCACHEPREFIX``, filled with
jax's pycs before the first round: nothing is written beside the installed sources).
Target (issue 51): share <= 0.005.

Usage: python benchmarks/bench_hook_share.py [--rounds N] [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from _installed import away, check_imported_from, installed  # noqa: E402
from _timing import Ratio, Row, dump, print_table, quartiles  # noqa: E402

TARGET = 0.005

#: The child: the hook, timers around it and the finders after it, ``import jax``, calibration.
CHILD = r'''
import gc, json, os, sys, time
import jaxrewrite

jaxrewrite.install()
hook = sys.meta_path[0]
clock = time.perf_counter
state = {"depth": 0, "asking": False, "inside": 0.0, "delegated": 0.0, "calls": 0, "gc": 0.0, "gc_start": 0.0}


def on_gc(phase, info):
    """Time the collections that start in the hook's own code (not in a finder it asks)."""
    if phase == "start":
        state["gc_start"] = clock()
    elif state["depth"] and not state["asking"]:
        state["gc"] += clock() - state["gc_start"]


gc.callbacks.append(on_gc)


class Later:
    """Every finder after the hook, as one, asked in turn as importlib asks them: its time counts
    as delegated while the hook is asking it (one timer per call of the hook, not per finder)."""

    def __init__(self, finders):
        self.finders = finders

    def _ask(self, name, path, target):
        for finder in self.finders:
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is not None:
                spec = find_spec(name, path, target)
                if spec is not None:
                    return spec
        return None

    def find_spec(self, name, path=None, target=None):
        if not state["depth"]:
            return self._ask(name, path, target)
        state["asking"] = True
        start = clock()
        try:
            return self._ask(name, path, target)
        finally:
            state["delegated"] += clock() - start
            state["calls"] += 1
            state["asking"] = False

    def invalidate_caches(self):
        for finder in self.finders:
            if hasattr(finder, "invalidate_caches"):
                finder.invalidate_caches()

    def find_distributions(self, *args, **kwargs):
        for finder in self.finders:
            if hasattr(finder, "find_distributions"):
                yield from finder.find_distributions(*args, **kwargs)


own = hook.find_spec


def timed_find_spec(name, path=None, target=None):
    state["depth"] += 1
    if state["depth"] > 1:  # an import made by the hook itself: already inside the outer timing
        try:
            return own(name, path, target)
        finally:
            state["depth"] -= 1
    start = clock()
    try:
        return own(name, path, target)
    finally:
        state["inside"] += clock() - start
        state["depth"] -= 1


sys.meta_path[1:] = [Later(sys.meta_path[1:])]
hook.find_spec = timed_find_spec

start = clock()
import jax
total = clock() - start
measured = dict(state)
gc.callbacks.remove(on_gc)

# What the Later wrapper costs per call outside its own timer (it counted against the hook):
# through the wrapper minus what it timed, minus the same call made directly.
class Null:
    def find_spec(self, name, path=None, target=None):
        return None


null, wrapped, calls = Null(), Later([]), 20000
bias = []
for _ in range(5):
    state["depth"], before = 1, state["delegated"]
    start = clock()
    for _ in range(calls):
        wrapped.find_spec("x", None, None)
    through = clock() - start - (state["delegated"] - before)
    start = clock()
    for _ in range(calls):
        wrapped._ask("x", None, None)
    direct = clock() - start
    bias.append(max(0.0, (through - direct) / calls))
state["depth"] = 0
print(json.dumps({
    "total": total, "inside": measured["inside"], "delegated": measured["delegated"], "calls": measured["calls"],
    "gc": measured["gc"], "bias": min(bias), "modules": len(sys.modules),
}))
'''  # noqa: E501

KINDS = ("runner",)

#: The warm-up: jax's pycs (and jaxrewrite's) put under the prefix, copied from beside the sources
#: where a valid one is there (as pip leaves an install), compiled only where none is: compiling
#: all of jax again would cost a few seconds and give the same files. Run with no prefix and
#: nothing written beside the sources.
WARM_UP = r"""
import sys
from importlib.machinery import SourceFileLoader

# Every source whose code is loaded from here on, an import that then fails included (its pyc
# is written before it runs, so the children would find one).
loaded = []
get_code = SourceFileLoader.get_code


def recording(self, fullname):
    loaded.append(self.path)
    return get_code(self, fullname)


SourceFileLoader.get_code = recording
import importlib.util, os, py_compile, shutil
import jax
import jaxrewrite

SourceFileLoader.get_code = get_code
prefix = sys.argv[1]


def valid(pyc, source):
    try:
        with open(pyc, "rb") as f:
            head = f.read(16)
        st = os.stat(source)
    except OSError:
        return False
    return (
        head[:4] == importlib.util.MAGIC_NUMBER
        and int.from_bytes(head[4:8], "little") == 0
        and int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
        and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF
    )


files = [getattr(m, "__file__", None) for m in list(sys.modules.values())] + loaded
for source in dict.fromkeys(f for f in files if isinstance(f, str) and f.endswith(".py")):
    installed = importlib.util.cache_from_source(source)
    sys.pycache_prefix = prefix
    target = importlib.util.cache_from_source(source)
    sys.pycache_prefix = None
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if valid(installed, source):
        shutil.copyfile(installed, target)
    else:
        py_compile.compile(source, cfile=target, doraise=True)
"""


#: Where the children import jaxrewrite from: a wheel of this checkout, installed (``main``), as
#: users have it, or with ``--checkout`` the checkout (benchmarks/_installed.py says why).
PACKAGE_ROOT = str(REPO)


def child_env(prefix: Path, writes: bool) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
    }
    env["JAX_PLATFORMS"] = env.get("JAX_PLATFORMS", "cpu")
    env["PYTHONPATH"] = PACKAGE_ROOT
    env["PYTHONPYCACHEPREFIX"] = str(prefix)
    if not writes:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def sample(prefix: Path, writes: bool) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        env=child_env(prefix, writes),
        cwd=away(),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["self"] = (
        result["inside"] - result["delegated"] - result["gc"] - result["calls"] * result["bias"]
    )
    result["share"] = result["self"] / result["total"]
    return result


def measure(rounds: int, quick: bool) -> dict[str, list[dict[str, Any]]]:
    results: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    with tempfile.TemporaryDirectory() as tmp:
        prefix = Path(tmp) / "pycache"
        # jax's own pycs under the prefix (WARM_UP: no hook).
        env = {k: v for k, v in child_env(prefix, False).items() if k != "PYTHONPYCACHEPREFIX"}
        warm_up = subprocess.run(
            [sys.executable, "-c", WARM_UP, str(prefix)],
            env=env,
            cwd=away(),
            capture_output=True,
            text=True,
            check=False,
        )
        check_imported_from(PACKAGE_ROOT, env)
        if warm_up.returncode != 0:
            raise SystemExit(f"warm-up failed:\n{warm_up.stderr}")
        if not quick:
            sample(prefix, True)  # the page cache
        for _ in range(rounds):
            results["runner"].append(sample(prefix, True))
    return results


def rows(results: dict[str, list[dict[str, Any]]]) -> list[Row]:
    out = []
    for kind in KINDS:
        runs = results[kind]
        low, median, high = quartiles([r["share"] for r in runs])
        self_ms = statistics.median(r["self"] for r in runs) * 1e3
        total_ms = statistics.median(r["total"] for r in runs) * 1e3
        context = (
            f"hook {self_ms:.2f} of {total_ms:.0f} ms; "
            f"{statistics.median(r['calls'] for r in runs):.0f} delegated "
            f"calls, timer cost {statistics.median(r['bias'] for r in runs) * 1e6:.2f} us each and "
            f"{statistics.median(r['gc'] for r in runs) * 1e3:.2f} ms of collections "
            "begun in the hook subtracted"
        )
        what = f"hook share of import jax, {kind}: hook self time / import jax"
        out.append(Row("hook share", what, Ratio(median, low, high), TARGET, context))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11, help="children, one sample each")
    parser.add_argument(
        "--quick", action="store_true", help="one round: proves the script runs, measures nothing"
    )
    parser.add_argument("--json", type=Path, help="write the rows here (benchmarks/run.py)")
    parser.add_argument(
        "--checkout",
        action="store_true",
        help="import jaxrewrite from this checkout, not from a wheel of it installed (the default)",
    )
    args = parser.parse_args(argv)
    global PACKAGE_ROOT
    wheel = tempfile.TemporaryDirectory()
    if not args.checkout:
        PACKAGE_ROOT = installed(wheel.name)
    table = rows(measure(1 if args.quick else args.rounds, args.quick))
    print_table(table, quick=args.quick)
    dump(table, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
