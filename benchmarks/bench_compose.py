"""Import cost of composing with another tool's import hook (hook/compose.py), warm caches.

With jaxtyping's, beartype.claw's or typeguard's hook installed for the module, its loader
compiles the module, and jaxrewrite's finder never swaps in its own: the opted-in module (both
hooks) against the rewrite written by hand imported under the tool's hook alone, each from the
tool's own warm pyc. Fresh interpreters, jax imported before the clock starts, arms interleaved,
medians of per-round ratios (bench_import.py's machinery). Target: the warm-import target
against the rewrite by hand of bench_import.py, ratio <= 1.1 (CPU time is reported beside wall
time: read it on a loaded host).

Usage: python benchmarks/bench_compose.py [--repeats N] [--quick] [--json PATH] [--tools
jaxtyping,beartype,typeguard]
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
from pathlib import Path

import bench_import
from _installed import check_imported_from
from _timing import Ratio, Row, dump, print_table
from bench_import import (
    IMPORT_MODULE,
    child_env,
    opted_in_module,
    pair,
    rounds,
    sample,
    unchecked,
    use_installed,
)

from jaxrewrite.engine.rewrite import rewrite_source

#: How each tool's hook is installed for the benchmark's modules.
INSTALL = {
    "jaxtyping": (
        "import jaxtyping; jaxtyping.install_import_hook(['bench_c', 'bench_h'], "
        "'beartype.beartype')"
    ),
    "beartype": (
        "from beartype.claw import beartype_package; beartype_package('bench_c'); "
        "beartype_package('bench_h')"
    ),
    "typeguard": (
        "from typeguard import install_import_hook; install_import_hook(['bench_c', 'bench_h'])"
    ),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one round, no warm-up: proves the script runs, measures nothing",
    )
    parser.add_argument("--json", type=Path)
    parser.add_argument("--tools", default=",".join(INSTALL))
    parser.add_argument(
        "--checkout",
        action="store_true",
        help="import jaxrewrite from this checkout, not from a wheel of it installed (the default)",
    )
    args = parser.parse_args(argv)
    tools = [tool for tool in args.tools.split(",") if importlib.util.find_spec(tool) is not None]
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as wheel:
        if not args.checkout:
            use_installed(wheel)
        text = opted_in_module()
        Path(tmp, "bench_c.py").write_text(text)
        Path(tmp, "bench_h.py").write_text(unchecked(rewrite_source(text, "bench_h.py")))
        env = child_env(tmp)
        check_imported_from(bench_import.PACKAGE_ROOT, env)
        arms = {}
        for tool in tools:
            arms[f"{tool} alone, by hand"] = IMPORT_MODULE.format(
                install=INSTALL[tool], modules=("bench_h",)
            )
            both = INSTALL[tool] + "\njaxrewrite.install(['bench_c'])"
            arms[f"{tool} + jaxrewrite"] = IMPORT_MODULE.format(install=both, modules=("bench_c",))
        if not args.quick:
            for code in arms.values():
                sample(code, env)  # writes each tool's pycs
        samples = rounds(arms, env, 1 if args.quick else args.repeats)
    rows = []
    for tool in tools:
        result = pair(samples, f"{tool} alone, by hand", f"{tool} + jaxrewrite")
        context = (
            f"{result.hooked * 1e3:.2f} vs {result.plain * 1e3:.2f} ms, cpu ratio "
            f"{result.cpu_ratio:.3f}"
        )
        ratio = Ratio(result.ratio, result.low, result.high)
        rows.append(
            Row(
                "compose",
                f"compose warm import, {tool}: composed / by hand under {tool}",
                ratio,
                1.1,
                context,
            )
        )
    print_table(rows, args.quick)
    dump(rows, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
