"""Import cost of the hook, measured in fresh interpreters (interleaved arms, medians).

1. ``import jax`` with the hook installed (no package named: the user's files only, so it reads no
   file of jax) vs not installed: context; the target is on bench_hook_share.py's in-process
   share (<= 0.5 %), which this wall-clock row cannot resolve.
2. An opted-in module imported through the hook from a warm cache vs the same module imported
   plainly from its own warm pyc (jax already imported in both, so only the module is timed;
   the hook's once-per-process cost, the cache tag, is included): context.
   The two do not run the same code: the rewritten decorators pass static_argnums/argnames, and
   jax.jit does more work for those. So a third arm imports the rewritten text saved as an
   ordinary module (what you would write by hand), plainly: hook vs that is the hook's own cost.
   Its target (<= 1.03) is checked in instructions by bench_instructions.py: this wall-clock
   row moves by more than 3 % on a shared machine. A fourth imports it with plain types and no
   marker import, as code written without jaxrewrite at all: context. Each child of these arms then
   imports a second module of the same text, timed apart: what each further opted-in module
   costs once the once-per-process costs are paid (reading and hashing its source, and the
   finder's own frames), against plain code and against the by-hand rewrite.

   One child gives both of its arm's samples: its first import is exactly what a child that
   imports only that module times, and the second is timed after it. So a round is six fresh
   interpreters (two for ``import jax``, four for the modules), in an order that rotates from
   round to round, and the rows pair the children of the same round.

The collector is off during each timed import, in every arm, as ``timeit`` has it. Where its
counters stood when the timer started was decided by what each arm did before (``install()``
and the other tools' set-ups allocate; the plain arms do not), so a collection set off by the
module's own 48 ``jax.jit`` decorations fell inside one arm's timing and outside another's by
that phase alone: on 2026-12-04 the same wheel and module read 1.068 against the by-hand arm
with the collector on, and 1.019-1.038 with it off. (``gc.collect()`` before each import does
not fix this: a full collection of jax's objects just before the timer leaves every cache cold,
which no import in a running program meets.) What the hook allocates is a few objects per
module; their share of any collection is nothing these rows could resolve.

The hook's share of ``import jax`` measured inside the process (steadier than row 1) is
bench_hook_share.py's.

Usage: python benchmarks/bench_import.py [--repeats N] [--quick] [--table PATH] [--profile]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _installed import away, check_imported_from, installed  # noqa: E402  (benchmarks/ is sys.path[0] when run as a script)
from _timing import quartiles  # noqa: E402

from jaxrewrite.engine.rewrite import rewrite_source  # noqa: E402

TABLE = REPO / "benchmarks" / "results" / "import_cost.md"

IMPORT_JAX = """\
import time, jaxrewrite
{install}
start, cpu = time.perf_counter(), time.thread_time()
import jax
print(time.perf_counter() - start, time.thread_time() - cpu)
"""

IMPORT_MODULE = """\
import gc, time, jax, jaxrewrite
{install}
for module in {modules!r}:
    gc.disable()  # no collection inside any arm's timing: see the docstring
    start, cpu = time.perf_counter(), time.thread_time()
    __import__(module)
    print(time.perf_counter() - start, time.thread_time() - cpu)
    gc.enable()
"""

PROFILE = """\
import cProfile, pstats, jaxrewrite
jaxrewrite.install()
profile = cProfile.Profile()
profile.enable()
import jax
profile.disable()
stats = pstats.Stats(profile)
stats.sort_stats("tottime").print_stats("hook/|header.py", 12)
"""


MARKER_IMPORT = "from jaxrewrite.markers import Static"


def unchecked(text: str) -> str:
    """``text`` taking its marker without NotRewrittenWarning's check, as hand-written code may."""
    assert MARKER_IMPORT in text
    return text.replace(
        MARKER_IMPORT, 'from jaxrewrite.markers import UNCHECKED; Static = UNCHECKED["Static"]', 1
    )


def opted_in_module(functions: int = 24) -> str:
    """A module shaped like real user code: a header, imports, several jitted functions."""
    parts = [
        '"""A benchmark module: jitted numerical helpers with static arguments."""',
        "# jaxrewrite: enable",
        "from __future__ import annotations",
        "",
        "import functools",
        "",
        "import jax",
        "import jax.numpy as jnp",
        # The plain and by-hand arms import this text un-rewritten, with the import replaced by
        # UNCHECKED (``unchecked``): a marker fetched from jaxrewrite or jaxrewrite.markers would
        # make them pay the NotRewrittenWarning analysis (its cost is bench_check.py's row).
        "from jaxrewrite.markers import Static",
        "",
    ]
    for i in range(functions):
        parts.append(
            textwrap.dedent(
                f'''
                @jax.jit
                def step_{i}(x: jax.Array, n: Static[int], mode: Static[str] = "sum") -> jax.Array:
                    """Apply {i} + n cheap updates to x."""
                    for _ in range(n):
                        x = jnp.tanh(x) * {i + 1} + jnp.cos(x)
                    return x.sum() if mode == "sum" else x.mean()


                @functools.partial(jax.jit, donate_argnums=(0,))
                def update_{i}(state: jax.Array, k: Static[int]) -> jax.Array:
                    return state.at[k].add({i})
                '''
            )
        )
    return "\n".join(parts)


#: Where the children import jaxrewrite from: this checkout, or (``use_installed``) a wheel of it
#: installed as a user has it.
PACKAGE_ROOT = str(REPO)


def use_installed(folder: str) -> None:
    """Make the children import jaxrewrite from a wheel of this checkout built under ``folder``."""
    global PACKAGE_ROOT
    PACKAGE_ROOT = installed(folder)


def child_env(extra_path: str | None = None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
    }
    env["JAX_PLATFORMS"] = env.get("JAX_PLATFORMS", "cpu")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (extra_path, PACKAGE_ROOT, env.get("PYTHONPATH")) if p
    )
    return env


def sample(code: str, env: dict[str, str]) -> list[tuple[float, float]]:
    """(wall, cpu) seconds the child measured around each of its imports, in order."""
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=away(),
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{out.stderr}")
    words = out.stdout.split()
    return [(float(wall), float(cpu)) for wall, cpu in zip(words[::2], words[1::2])]


class Result:
    """Paired rounds: the median of per-round ratios hook/plain (wall and CPU), with the IQR of the
    wall ratios; absolute medians are context. Pairing keeps a round that was slow for both arms
    (a neighbour's burst of load) from skewing the ratio."""

    def __init__(self, plain: list[tuple[float, float]], hooked: list[tuple[float, float]]) -> None:
        self.plain = statistics.median(w for w, _ in plain)
        self.hooked = statistics.median(w for w, _ in hooked)
        self.low, self.ratio, self.high = quartiles([h[0] / p[0] for p, h in zip(plain, hooked)])
        self.cpu_ratio = statistics.median(h[1] / p[1] for p, h in zip(plain, hooked))


def rounds(
    arms: dict[str, str], env: dict[str, str], repeats: int
) -> dict[str, list[list[tuple[float, float]]]]:
    """Each arm's child once per round, in fresh interpreters; the order rotates by one arm
    each round, so no arm always runs right after another."""
    names = list(arms)
    samples: dict[str, list[list[tuple[float, float]]]] = {name: [] for name in names}
    for i in range(repeats):
        shift = i % len(names)
        for name in names[shift:] + names[:shift]:
            samples[name].append(sample(arms[name], env))
    return samples


def pair(
    samples: dict[str, list[list[tuple[float, float]]]], plain: str, hooked: str, at: int = 0
) -> Result:
    """The ratio of arm ``hooked`` over arm ``plain``, round by round, for their import ``at``."""
    return Result([run[at] for run in samples[plain]], [run[at] for run in samples[hooked]])


def _cell(result: Result) -> str:
    return f"{result.ratio:.3f} [{result.low:.3f}-{result.high:.3f}] ({result.cpu_ratio:.3f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats",
        type=int,
        default=30,
        help=(
            "rounds (six fresh interpreters each; 15 left the medians moving by ~0.02 between runs)"
        ),
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one round, no warm-up: proves the script runs, measures nothing",
    )
    parser.add_argument(
        "--table", type=Path, default=TABLE, help="markdown file to append the result row to"
    )
    parser.add_argument(
        "--profile", action="store_true", help="also cProfile the hook during `import jax`"
    )
    parser.add_argument(
        "--checkout",
        action="store_true",
        help="import jaxrewrite from this checkout, not from a wheel of it installed (the default)",
    )
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    install = "jaxrewrite.install()"
    wheel = tempfile.TemporaryDirectory()
    if not args.checkout:
        use_installed(wheel.name)
    print(
        "jaxrewrite imported from "
        f"{PACKAGE_ROOT}{' (a wheel of this checkout, installed)' if not args.checkout else ''}"
    )

    env = child_env()
    check_imported_from(PACKAGE_ROOT, env)
    jax_arms = {"plain": IMPORT_JAX.format(install=""), "hook": IMPORT_JAX.format(install=install)}
    if not args.quick:
        sample(jax_arms["plain"], env)  # warm the page cache and jax's own pycs
    jax_samples = rounds(jax_arms, env, repeats)
    jax_result = pair(jax_samples, "plain", "hook")

    with tempfile.TemporaryDirectory() as tmp:
        text = opted_in_module()
        Path(tmp, "bench_opted_in.py").write_text(text)
        Path(tmp, "bench_first.py").write_text(text)
        Path(tmp, "bench_opted_in_plain.py").write_text(unchecked(text))
        Path(tmp, "bench_first_plain.py").write_text(unchecked(text))
        Path(tmp, "bench_by_hand.py").write_text(
            unchecked(rewrite_source(text, "bench_by_hand.py"))
        )
        Path(tmp, "bench_first_by_hand.py").write_text(
            unchecked(rewrite_source(text, "bench_first_by_hand.py"))
        )
        # What a user writes without jaxrewrite at all: plain types, no marker import.
        plain_types = re.sub(
            r"Static\[(\w+)\]", r"\1", rewrite_source(text, "bench_plain_types.py")
        )
        Path(tmp, "bench_plain_types.py").write_text(plain_types.replace(MARKER_IMPORT + "\n", ""))
        env = child_env(tmp)

        def code(hook: bool, *modules: str) -> str:
            return IMPORT_MODULE.format(install=install if hook else "", modules=modules)

        # The first import of each child is the module alone (once-per-process costs included),
        # the second the same text after it.
        module_arms = {
            "plain": code(False, "bench_first_plain", "bench_opted_in_plain"),
            "hook": code(True, "bench_first", "bench_opted_in"),
            "by hand": code(False, "bench_first_by_hand", "bench_by_hand"),
            "plain types": code(False, "bench_plain_types"),
        }
        if not args.quick:
            for warm in module_arms.values():
                sample(warm, env)  # writes the plain pycs and the hook's
        module_samples = rounds(module_arms, env, repeats)
    module_result = pair(module_samples, "plain", "hook")
    by_hand_result = pair(module_samples, "by hand", "hook")
    plain_types_result = pair(module_samples, "plain types", "hook")
    second_result = pair(module_samples, "plain", "hook", at=1)
    second_by_hand_result = pair(module_samples, "by hand", "hook", at=1)

    rows = [
        ("import jax", jax_result, None),
        ("opted-in module, warm cache", module_result, None),
        ("  vs the rewrite written by hand", by_hand_result, None),  # bench_instructions.py's
        ("  vs by hand with plain types", plain_types_result, None),
        ("  as the second opted-in module", second_result, None),
        ("  second module vs by hand", second_by_hand_result, None),
    ]
    print(
        f"{'medians (ratio: of per-round ratios)':38} {'plain ms':>9} {'hook ms':>9} "
        f"{'ratio':>6} {'cpu ratio':>9}  target"
    )
    for what, result, target in rows:
        verdict = (
            "" if target is None else f"<= {target} {'ok' if result.ratio <= target else 'MISSED'}"
        )
        print(
            f"{what:38} {result.plain * 1e3:9.2f} {result.hooked * 1e3:9.2f} {result.ratio:6.3f} "
            f"{result.cpu_ratio:9.3f}  {verdict}"
        )
    spreads = "; ".join(f"{what.strip()} [{r.low:.3f}, {r.high:.3f}]" for what, r, _ in rows)
    print(f"IQR of the per-round wall ratios: {spreads}")
    if args.quick:
        print("(--quick: one round, each arm's child once; these figures are not measurements)")

    args.table.parent.mkdir(parents=True, exist_ok=True)
    header = (
        "| date | python | repeats | import jax ms (plain / hook) | ratio [IQR] (cpu) "
        "| opted-in module ms (plain / hook) | ratio [IQR] (cpu) | vs by hand [IQR] (cpu) "
        "| second module [IQR] (cpu) | second module vs by hand [IQR] (cpu) |"
    )
    lines = args.table.read_text().splitlines() if args.table.exists() else []
    headers = [line for line in lines if line.startswith("| date")]
    with args.table.open("a") as table:
        if not headers or headers[-1] != header:  # a new table whenever the columns changed
            if headers:
                table.write("\n")
            table.write(header + "\n" + "| --- " * header.count(" | ") + "| --- |\n")
        table.write(
            f"| {datetime.date.today()} | {platform.python_version()} | "
            f"{repeats}{' (quick)' if args.quick else ''} "
            f"| {jax_result.plain * 1e3:.0f} / {jax_result.hooked * 1e3:.0f} "
            f"| {_cell(jax_result)} "
            f"| {module_result.plain * 1e3:.2f} / {module_result.hooked * 1e3:.2f} "
            f"| {_cell(module_result)} | {_cell(by_hand_result)} | {_cell(second_result)} "
            f"| {_cell(second_by_hand_result)} |\n"
        )
    print(f"row appended to {args.table}")

    if args.profile:
        subprocess.run([sys.executable, "-c", PROFILE], env=child_env(), check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
