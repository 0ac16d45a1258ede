"""Per-call dispatch cost of a jitted function with one Static int, four ways, side by side.

Arms (one process, warmed up, interleaved rounds, medians of paired per-round ratios):

- ``hand``: ``jax.jit(f, static_argnums=(1,), static_argnames=("n",))`` written by hand: the
  baseline.
- ``jaxrewrite``: the same function written ``@jax.jit`` / ``n: Static[int]`` in an opted-in
  module, run through ``rewrite_source``, compiled and exec'd. Target: <= 1.02 x hand, since the
  rewrite should leave nothing behind at run time but the keywords a user would have written.
- ``jax_dataclasses``: ``jax_dataclasses.jit`` with its own ``Static[int]`` annotation.
- ``equinox``: ``equinox.filter_jit`` (treats the int as static by itself).
- ``hand (A/A)``: the baseline again, as its own arm: its ratio shows the noise floor of the run.

Blocking: dispatch is asynchronous, and what these wrappers add is Python work on the calling
thread, so calls are NOT blocked one by one (that would add the same device round trip to
every call and dilute every ratio towards 1). The last result of each batch is blocked on
before the clock stops, so no arm leaves queued work for the next. The default clock is the
calling thread's CPU time (see _timing.py), which ignores time lost to other processes on a
shared machine; ``--clock wall`` and ``--block`` give the end-to-end variant.

Usage: python benchmarks/bench_dispatch.py [--rounds N] [--batch-ms MS] [--clock cpu|wall]
    [--platform cpu|tpu|gpu] [--block] [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from _timing import (  # noqa: E402
    CLOCKS,
    Row,
    add_device_options,
    calibrate,
    device_kind,
    dump,
    interleave,
    median,
    paired_ratio,
    per_call,
    print_table,
    run_text,
    use_platform,
)

REWRITTEN = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static


@jax.jit
def scale(x, n: Static[int]):
    return x * n
"""

BY_HAND = """\
import jax


def scale(x, n):
    return x * n


scale = jax.jit(scale, static_argnums=(1,), static_argnames=("n",))
"""

JAX_DATACLASSES = """\
import jax_dataclasses as jdc


@jdc.jit
def scale(x, n: jdc.Static[int]):
    return x * n
"""

EQUINOX = """\
import equinox as eqx


@eqx.filter_jit
def scale(x, n):
    return x * n
"""


def load(text: str, name: str) -> object:
    return run_text(text, f"<{name}>", {"__name__": name})["scale"]


def rewritten_function() -> object:
    from jaxrewrite import rewrite_source

    text = rewrite_source(REWRITTEN, "bench_dispatch_rewritten.py")
    assert "static_argnums=(1,)" in text and "static_argnames=('n',)" in text, text
    return load(text, "bench_dispatch_rewritten")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int, default=81, help="interleaved rounds (one batch per arm each)"
    )
    parser.add_argument("--batch-ms", type=float, default=8.0, help="clock time per batch of calls")
    add_device_options(parser)
    parser.add_argument("--block", action="store_true", help="block_until_ready on every call")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a few tiny rounds: proves the script runs, measures nothing",
    )
    parser.add_argument("--json", type=Path, help="also write the rows as JSON (for run.py)")
    args = parser.parse_args(argv)
    rounds, batch = (3, 0.0005) if args.quick else (args.rounds, args.batch_ms / 1e3)
    clock = CLOCKS[args.clock]
    use_platform(args.platform)
    kind = device_kind(args.platform)

    import jax.numpy as jnp

    functions = {
        "hand": load(BY_HAND, "bench_dispatch_hand"),
        "jaxrewrite": rewritten_function(),
        "jax_dataclasses": load(JAX_DATACLASSES, "bench_dispatch_jdc"),
        "equinox": load(EQUINOX, "bench_dispatch_eqx"),
    }
    x = jnp.arange(4.0)
    expected = [0.0, 3.0, 6.0, 9.0]
    for name, fn in functions.items():  # warm up: trace and compile, positional and keyword
        assert fn(x, 3).tolist() == expected, name  # type: ignore[operator]
        assert fn(x, n=3).tolist() == expected, name  # type: ignore[operator]

    def finish(result: object) -> None:
        result.block_until_ready()  # type: ignore[attr-defined]

    def positional(fn: object) -> object:
        if args.block:
            return lambda: fn(x, 3).block_until_ready()  # type: ignore[operator]
        return lambda: fn(x, 3)  # type: ignore[operator]

    def keyword(fn: object) -> object:
        if args.block:
            return lambda: fn(x, n=3).block_until_ready()  # type: ignore[operator]
        return lambda: fn(x, n=3)  # type: ignore[operator]

    calls = {name: positional(fn) for name, fn in functions.items()}
    calls["hand (A/A)"] = positional(functions["hand"])
    calls["hand, n=3"] = keyword(functions["hand"])
    calls["jaxrewrite, n=3"] = keyword(functions["jaxrewrite"])
    arms = {}
    for name, call in calls.items():
        count = 2 if args.quick else calibrate(call, batch, clock, minimum=20)  # type: ignore[arg-type]
        arms[name] = per_call(call, count, clock, finish)  # type: ignore[arg-type]
    samples = interleave(arms, rounds)

    def us(name: str) -> float:
        return median(samples[name]) * 1e6

    def row(what: str, arm: str, base: str, target: float | None = None) -> Row:
        context = f"{us(arm):.2f} vs {us(base):.2f} us/call"
        return Row("dispatch", what, paired_ratio(samples[arm], samples[base]), target, context)

    rows = [
        row("dispatch: jaxrewrite / hand jax.jit", "jaxrewrite", "hand", 1.02),
        row(
            "dispatch: jaxrewrite / hand jax.jit, keyword n=3", "jaxrewrite, n=3", "hand, n=3", 1.02
        ),
        row("dispatch: hand jax.jit / itself (A/A noise)", "hand (A/A)", "hand"),
        row("dispatch: jax_dataclasses.jit / hand jax.jit", "jax_dataclasses", "hand"),
        row("dispatch: equinox.filter_jit / hand jax.jit", "equinox", "hand"),
        row("dispatch: jaxrewrite / equinox.filter_jit", "jaxrewrite", "equinox"),
    ]
    for each in rows:
        each.device = kind
    blocking = "block every call" if args.block else "block last of batch"
    print(f"# dispatch: {rounds} rounds, clock={args.clock}, device={kind}, {blocking}")
    print_table(rows, args.quick)
    dump(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
