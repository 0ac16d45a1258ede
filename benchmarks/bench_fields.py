"""Per-call dispatch cost of an Equinox Module with Static fields, against the same Module written
with ``eqx.field(static=True)`` by hand, under ``eqx.filter_jit`` and under ``jax.jit``.

Arms (one process, warmed up, interleaved rounds, medians of paired per-round ratios, as in
bench_dispatch.py): ``hand`` is the baseline, ``jaxrewrite`` the Module written ``act:
Static[Callable]`` / ``depth: Static[int] = 2`` run through ``rewrite_source``; ``hand (A/A)``
is the baseline again, its ratio the run's noise floor. Target: <= 1.02 x hand under both jits,
since the rewrite leaves the very ``eqx.field(static=True)`` a user would write, nothing else.

Usage: python benchmarks/bench_fields.py [--rounds N] [--batch-ms MS] [--clock cpu|wall]
    [--platform cpu|tpu|gpu] [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import functools
import sys
import types
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
from typing import Callable

import equinox as eqx
import jax
from jaxrewrite import Static


class Mlp(eqx.Module):
    weight: jax.Array
    bias: jax.Array
    act: Static[Callable]
    depth: Static[int] = 2
    name: Static[str] = eqx.field(default="mlp")

    def __call__(self, x):
        for _ in range(self.depth):
            x = self.act(self.weight * x + self.bias)
        return x
"""

BY_HAND = """\
from typing import Callable

import equinox as eqx
import jax


class Mlp(eqx.Module):
    weight: jax.Array
    bias: jax.Array
    act: Callable = eqx.field(static=True)
    depth: int = eqx.field(default=2, static=True)
    name: str = eqx.field(default="mlp", static=True)

    def __call__(self, x):
        for _ in range(self.depth):
            x = self.act(self.weight * x + self.bias)
        return x
"""


def load(text: str, name: str) -> object:
    """Run the text as a real module: dataclasses look the class's module up in sys.modules."""
    module = types.ModuleType(name)
    sys.modules[name] = module
    run_text(text, f"<{name}>", module.__dict__)
    return module.Mlp


def rewritten_class() -> object:
    from jaxrewrite import rewrite_source

    text = rewrite_source(REWRITTEN, "bench_fields_rewritten.py")
    assert "act: Static[Callable] = __import__('equinox').field(static=True)" in text, text
    assert 'eqx.field(default="mlp", static=True)' in text, text
    return load(text, "bench_fields_rewritten")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int, default=81, help="interleaved rounds (one batch per arm each)"
    )
    parser.add_argument("--batch-ms", type=float, default=8.0, help="clock time per batch of calls")
    add_device_options(parser)
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

    import equinox as eqx
    import jax
    import jax.numpy as jnp

    x = jnp.arange(4.0)
    models = {
        "hand": load(BY_HAND, "bench_fields_hand")(jnp.ones(4), jnp.zeros(4), jnp.tanh),  # type: ignore[operator]
        "jaxrewrite": rewritten_class()(jnp.ones(4), jnp.zeros(4), jnp.tanh),  # type: ignore[operator]
    }
    assert (
        len(jax.tree_util.tree_leaves(models["jaxrewrite"]))
        == len(jax.tree_util.tree_leaves(models["hand"]))
        == 2
    )
    jits = {"eqx.filter_jit": eqx.filter_jit, "jax.jit": jax.jit}

    def finish(result: object) -> None:
        result.block_until_ready()  # type: ignore[attr-defined]

    calls = {}
    for jit_name, jit in jits.items():
        for arm, model in [*models.items(), ("hand (A/A)", models["hand"])]:
            run = jit(lambda m, v: m(v))
            expected = jnp.tanh(jnp.tanh(x))
            assert jnp.allclose(run(model, x), expected), (
                jit_name,
                arm,
            )  # warm up: trace and compile
            calls[f"{arm}, {jit_name}"] = functools.partial(run, model, x)
    arms = {}
    for name, call in calls.items():
        count = 2 if args.quick else calibrate(call, batch, clock, minimum=20)
        arms[name] = per_call(call, count, clock, finish)
    samples = interleave(arms, rounds)

    def row(what: str, arm: str, base: str, target: float | None = None) -> Row:
        context = f"{median(samples[arm]) * 1e6:.2f} vs {median(samples[base]) * 1e6:.2f} us/call"
        return Row("fields", what, paired_ratio(samples[arm], samples[base]), target, context)

    rows = []
    for jit_name in jits:
        rows.append(
            row(
                f"fields: jaxrewrite Static / hand eqx.field(static=True), {jit_name}",
                f"jaxrewrite, {jit_name}",
                f"hand, {jit_name}",
                1.02,
            )
        )
        rows.append(
            row(
                f"fields: hand / itself (A/A noise), {jit_name}",
                f"hand (A/A), {jit_name}",
                f"hand, {jit_name}",
            )
        )
    for each in rows:
        each.device = kind
    print(f"# fields: {rounds} rounds, clock={args.clock}, device={kind}, block last of batch")
    print_table(rows, args.quick)
    dump(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
