"""Importing a library that ships opted-in modules, from ``jaxrewrite compile``'s prebuilt cache,
vs the same library with the rewrite written by hand (plain modules, plain pycs).

The library is ``examples/thelib`` laid out as an installed package (sources and their pycs in a
folder on the path, as pip leaves them): ``__init__`` installs the hook for its own package and
two of its submodules opt in. Arms, each a fresh interpreter, rounds interleaved (_timing.py):

* ``prebuilt``: that package after ``jaxrewrite compile`` and ``compileall``, imported by a
  process that may not write (PYTHONDONTWRITEBYTECODE, standing in for a read-only install), so
  every module comes from a cache written ahead of time.
* ``by hand``: each opted-in module replaced by its rewritten text (``Static`` taken from
  ``jaxrewrite.markers.UNCHECKED``, which skips NotRewrittenWarning's check) and the ``install()``
  call removed from ``__init__``: what a library without jaxrewrite's hook would ship.
* ``uncached``: the package as pip leaves it, no ``compile``, same unwritable process: every
  import rewrites again (context: what ``compile`` saves).

Rows: ``import thelib`` as a user pays it, jax included (target prebuilt / by hand <= 1.05); the
same with jax imported first, so only the library's own modules are timed (context: the hook's
once-per-process costs, installing it and hashing jaxrewrite's sources for the cache tag, are a
larger share there); and uncached / by hand. Ratios are on the wall clock of the importing code;
the CPU-time ratio of the importing thread is given as context.

Usage: python benchmarks/bench_library.py [--rounds N] [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from _timing import Row, dump, interleave, paired_ratio, print_table  # noqa: E402

from jaxrewrite.engine.rewrite import rewrite_source  # noqa: E402
from jaxrewrite.header import scan_header  # noqa: E402

LIBRARY = REPO / "examples" / "thelib" / "src" / "thelib"

#: The child: time ``import thelib`` (after ``{before}``), print wall and thread CPU seconds, then
#: whether the engine analyzed anything (only a cache miss makes it: each arm is checked to be what
#: it says).
CHILD = """\
import sys, time
{before}
wall, cpu = time.perf_counter(), time.thread_time()
import thelib
print(time.perf_counter() - wall, time.thread_time() - cpu)
print("jaxrewrite.engine.build" in sys.modules)
"""

#: Whether each arm's imports must run the rewrite.
REWRITES = {"prebuilt": False, "by_hand": False, "uncached": True}

INSTALL_LINES = ("import jaxrewrite\n", "jaxrewrite.install(packages=[__name__])\n")
MARKERS, MARKERS_UNCHECKED = (
    "from jaxrewrite import Static",
    'from jaxrewrite.markers import UNCHECKED; Static = UNCHECKED["Static"]',
)


def lay_out(root: Path) -> dict[str, Path]:
    """The three variants of the library under ``root``, each a folder to put on the path, and a
    copy of this checkout's jaxrewrite in ``root/site`` (as installed: an edit to the checkout
    during the run must not change the rewriter hash, which would invalidate the caches)."""
    site = root / "site"
    shutil.copytree(
        REPO / "jaxrewrite", site / "jaxrewrite", ignore=shutil.ignore_patterns("__pycache__")
    )
    from jaxrewrite.hook import cachetag
    from jaxrewrite.version import __version__

    cachetag.bake(
        str(site / "jaxrewrite"), __version__
    )  # the digest a wheel's build bakes in (setup.py)
    variants = {name: root / name for name in ("prebuilt", "by_hand", "uncached")}
    for folder in variants.values():
        shutil.copytree(LIBRARY, folder / "thelib", ignore=shutil.ignore_patterns("__pycache__"))
    for path in sorted((variants["by_hand"] / "thelib").rglob("*.py")):
        text = path.read_text()
        if scan_header(text).enabled:
            # The markers from jaxrewrite.markers.UNCHECKED: a module that fetches them from
            # jaxrewrite without having been rewritten is analyzed once for NotRewrittenWarning, a
            # cost that no hand-written library pays.
            rewritten = rewrite_source(text, str(path)).replace(MARKERS, MARKERS_UNCHECKED)
            assert MARKERS_UNCHECKED in rewritten, path
            path.write_text(rewritten)
        elif path.name == "__init__.py":
            for line in INSTALL_LINES:
                text = text.replace(line, "")
            path.write_text(text)
    assert "install(" not in (variants["by_hand"] / "thelib" / "__init__.py").read_text()
    env = child_env(None, site)
    # What pip does at install time: plain pycs for every module (one process for all four folders).
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *(str(f) for f in (site, *variants.values()))],
        env=env,
        check=True,
    )
    compiled = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", "compile", "-q", str(variants["prebuilt"])],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if compiled.returncode != 0:
        raise SystemExit(f"jaxrewrite compile failed:\n{compiled.stdout}{compiled.stderr}")
    return variants


def child_env(folder: Path | None, site: Path) -> dict[str, str]:
    """jaxrewrite's copy and one variant on the path; nothing written by the import."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPYCACHEPREFIX", "PYTHONPATH")}
    env["JAX_PLATFORMS"] = env.get("JAX_PLATFORMS", "cpu")
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in (folder, site) if p is not None)
    if folder is not None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def arm(name: str, folder: Path, before: str, cpu: list[float]) -> Callable[[], float]:
    """One fresh interpreter per sample: its wall seconds (CPU seconds go to ``cpu``)."""
    code = CHILD.format(before=before)
    env = child_env(folder, folder.parent / "site")

    def sample() -> float:
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise SystemExit(f"benchmark child failed:\n{done.stderr}")
        wall, seconds, engine = done.stdout.split()[-3:]
        if (engine == "True") != REWRITES[name]:
            raise SystemExit(
                f"arm {name!r}: the import {'ran' if engine == 'True' else 'skipped'} the rewrite"
            )
        cpu.append(float(seconds))
        return float(wall)

    return sample


def measure(
    variants: dict[str, Path], before: str, rounds: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    arms = {name: arm(name, folder, before, cpu[name]) for name, folder in variants.items()}
    return interleave(arms, rounds), cpu


def rows_for(
    label: str, wall: dict[str, list[float]], cpu: dict[str, list[float]], target: float | None
) -> list[Row]:
    rows = []
    for name, what, goal in (
        ("prebuilt", "prebuilt cache / by hand", target),
        ("uncached", "read-only, no compile / by hand", None),
    ):
        ms = (
            f"{statistics.median(wall[name]) * 1e3:.1f} vs "
            f"{statistics.median(wall['by_hand']) * 1e3:.1f} ms"
        )
        cpu_ratio = paired_ratio(cpu[name], cpu["by_hand"]).median
        rows.append(
            Row(
                "library",
                f"library {label}: {what}",
                paired_ratio(wall[name], wall["by_hand"]),
                goal,
                f"{ms}, cpu ratio {cpu_ratio:.3f}",
            )
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="fresh interpreters per arm and row")
    parser.add_argument(
        "--quick", action="store_true", help="one round, no warm-up: proves the script runs"
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rounds = 1 if args.quick else args.rounds
    with tempfile.TemporaryDirectory() as tmp:
        variants = lay_out(Path(tmp))
        whole = "import jax  # untimed: only the library's own modules"
        if not args.quick:
            for (
                name,
                folder,
            ) in variants.items():  # the page cache, jax's pycs: nothing the arms differ in
                arm(name, folder, "", [])()
        wall, cpu = measure(variants, "", rounds)
        rows = rows_for("import (jax included)", wall, cpu, 1.05)
        wall, cpu = measure(variants, whole, rounds)
        rows += rows_for("import after jax", wall, cpu, None)
    print_table(rows, args.quick)
    dump(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
