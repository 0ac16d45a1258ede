"""Per-leaf statics: a jitted function of a dict with N array leaves and S static entries.

Three arms per case, all in one process, warmed up, interleaved rounds, paired medians:

- ``jaxrewrite``: the dict is declared as a TypedDict whose static fields are ``Static[...]``
  in an opted-in module, rewritten by ``rewrite_source`` and exec'd; each call goes through
  ``jaxrewrite.leaves.static_leaves`` (split the statics out, pass their values as one leading
  static argument).
- ``equinox``: ``equinox.filter_jit`` on the same function, called with the same dict
  (equinox treats the non-array entries as static by itself). Target: jaxrewrite / equinox < 1
  at every N.
- ``jax``: plain ``jax.jit`` with the statics as separate static arguments and a dict holding
  only the arrays: JAX's own cost for the same work, what a user would write by hand.
  Target: jaxrewrite / jax <= 1.05 at every size.

The static entries are an int (a loop count), a callable (the activation) and, beyond two,
more ints. Cases: N = 10, 100, 1000 leaves with S = 2 statics, and S = 20 at N = 100.
What jaxrewrite's overhead grows with is shown two ways, each as N=1000 / N=10 (leaves) and
S=20 / S=2 (static entries):

- ``split alone``: the rewritten function with the transform handed to ``static_leaves``
  replaced by a stub that does nothing, so only jaxrewrite's own per-call work (split the
  statics out, call on with them first) is timed. Precise: no JAX call in the sample.
- ``overhead over JAX``: the paired per-round difference jaxrewrite - jax, end to end (includes
  JAX hashing one tuple of values instead of separate static arguments). A small difference of
  two large, noisy times: its interquartile range comes from a bootstrap over rounds, and at
  N=1000 it is wide.

Calls are not blocked one by one; the last result of each batch is (see bench_dispatch.py).

Every sample is preceded by untimed calls of the same arm (a quarter of its batch, at least
eight, the last one blocked). The first calls of a case after another case's arms are slow for
whichever arm makes them (the case's arrays and executable come back into cache: at N=1000
the first call took ~1.3 ms against ~0.5 ms steady, and the next three stayed slow), and the
rotation of ``interleave`` puts the arm listed first ahead of the others in all but one round
of every cycle, so without a warm-up that arm pays for the whole case: swapping the order of
the jaxrewrite and jax arms moved "N=1000: jaxrewrite / jax" from 1.29 to 0.65. With the
warm-up the order no longer mattered on the CPU (1.03 against 0.99), but it did on a TPU host
(1.066, IQR 0.94-1.20, against 1.006 with one case's arms alone). So each case's arms are
interleaved among themselves, one case after another: only its first round follows another
case, and the warm-up covers that. The rows that compare two cases (``split alone``,
``overhead over JAX``) pair rounds taken at different times: context, not targets.

``jit(grad)`` rows, at N = 10, 100, 1000 leaves with S = 2 statics (an int, a callable): the
gradient of a scalar loss of the dict, jitted, per call, three arms side by side:

- ``jaxrewrite``: ``@jax.jit`` over ``@jax.grad`` on a TypedDict parameter with Static fields,
  rewritten (``static_leaves`` over ``grad_leaves``); the gradient has None at the statics.
- ``equinox``: ``eqx.filter_jit(eqx.filter_grad(loss))`` on the same dict. Target: < 1.
- ``jax``: the hand split, ``jax.jit(jax.grad(loss), static_argnums=(1, 2))`` on a dict of the
  arrays and the statics as separate arguments. Target: <= 1.10.

Usage: python benchmarks/bench_leaves.py [--rounds N] [--batch-ms MS] [--clock cpu|wall]
    [--platform cpu|tpu|gpu] [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from _timing import (  # noqa: E402
    CLOCKS,
    Ratio,
    Row,
    add_device_options,
    calibrate,
    device_kind,
    dump,
    interleave,
    median,
    paired_difference,
    paired_ratio,
    per_call,
    print_table,
    run_text,
    use_platform,
)

# The computation, shared by the three arms: reduce the arrays, apply the static activation a
# static number of times, scale by the other static ints.
COMPUTE = """
def _compute(arrays, steps, act, extra):
    total = jnp.stack(list(arrays.values())).sum(axis=0)
    for _ in range(steps):
        total = act(total)
    return total * (1 + sum(extra))
"""


def module_text(leaves: int, statics: int) -> str:
    """The opted-in module (rewritten: TypedDict spelling), plus the equinox and jax arms."""
    fields = "".join(f"    a{i}: jax.Array\n" for i in range(leaves))
    fields += "    s0: Static[int]\n    s1: Static[Callable[[jax.Array], jax.Array]]\n"
    fields += "".join(f"    s{i}: Static[int]\n" for i in range(2, statics))
    extra = ", ".join(f"s{i}" for i in range(2, statics))
    extra_items = ", ".join(f'dic["s{i}"]' for i in range(2, statics))
    return f'''\
# jaxrewrite: enable
"""Generated: {leaves} array leaves, {statics} static entries."""
from typing import Callable, TypedDict

import equinox as eqx
import jax
import jax.numpy as jnp

from jaxrewrite import Static

STATIC_KEYS = frozenset(["s0", "s1"{"".join(f', "s{i}"' for i in range(2, statics))}])

{COMPUTE}

class Config(TypedDict):
{fields}

@jax.jit
def with_jaxrewrite(dic: Config):
    arrays = {{k: v for k, v in dic.items() if k not in STATIC_KEYS}}
    return _compute(arrays, dic["s0"], dic["s1"], ({extra_items}{"," if extra_items else ""}))


@eqx.filter_jit
def with_equinox(dic):
    arrays = {{k: v for k, v in dic.items() if k not in STATIC_KEYS}}
    return _compute(arrays, dic["s0"], dic["s1"], ({extra_items}{"," if extra_items else ""}))


@(lambda fun: jax.jit(fun, static_argnums=tuple(range(1, {statics + 1}))))
def with_jax(arrays, s0, s1{", " + extra if extra else ""}):
    return _compute(arrays, s0, s1, ({extra}{"," if extra else ""}))
'''


def grad_module_text(leaves: int) -> str:
    """The opted-in module for the jit(grad) rows: the same loss three ways."""
    fields = "".join(f"    a{i}: jax.Array\n" for i in range(leaves))
    return f'''\
# jaxrewrite: enable
"""Generated: jit(grad) over {leaves} array leaves and 2 static entries."""
from typing import Callable, TypedDict

import equinox as eqx
import jax
import jax.numpy as jnp

from jaxrewrite import Static

STATIC_KEYS = frozenset(["s0", "s1"])


def _loss(arrays, steps, act):
    total = jnp.stack(list(arrays.values())).sum(axis=0)
    for _ in range(steps):
        total = act(total)
    return total.sum()


class Config(TypedDict):
{fields}    s0: Static[int]
    s1: Static[Callable[[jax.Array], jax.Array]]


@jax.jit
@jax.grad
def with_jaxrewrite(dic: Config):
    return _loss({{k: v for k, v in dic.items() if k not in STATIC_KEYS}}, dic["s0"], dic["s1"])


def _equinox_loss(dic):
    return _loss({{k: v for k, v in dic.items() if k not in STATIC_KEYS}}, dic["s0"], dic["s1"])


with_equinox = eqx.filter_jit(eqx.filter_grad(_equinox_loss))
with_jax = jax.jit(jax.grad(_loss), static_argnums=(1, 2))
'''


class GradCase:
    """One N for the jit(grad) rows: the three functions and their call thunks."""

    def __init__(self, leaves: int) -> None:
        import jax
        import jax.numpy as jnp

        from jaxrewrite import rewrite_source

        self.leaves = leaves
        filename = f"bench_leaves_grad_{leaves}.py"
        text = rewrite_source(grad_module_text(leaves), filename)
        assert "static_leaves, jax.jit" in text and "grad_leaves, jax.grad" in text, text
        namespace = run_text(text, filename, {"__name__": filename[:-3]})
        arrays = {f"a{i}": jnp.full((2,), 1.0 / leaves) for i in range(leaves)}
        config = dict(arrays, s0=2, s1=jnp.tanh)
        jr, eq, jx = namespace["with_jaxrewrite"], namespace["with_equinox"], namespace["with_jax"]
        self.calls: dict[str, Callable[[], Any]] = {
            "jaxrewrite": lambda: jr(config),
            "equinox": lambda: eq(config),
            "jax": lambda: jx(arrays, 2, jnp.tanh),
        }
        results = {name: call() for name, call in self.calls.items()}  # warm up: compile
        assert results["jaxrewrite"]["s0"] is None and results["equinox"]["s1"] is None
        for name in ("jaxrewrite", "equinox"):
            for key, value in results["jax"].items():
                assert jnp.allclose(results[name][key], value), (name, key)
        self.finish = jax.block_until_ready

    def label(self) -> str:
        return f"N={self.leaves} S=2"


def warmed(
    call: Callable[[], Any],
    count: int,
    clock: Callable[[], float],
    finish: Callable[[Any], Any] | None = None,
) -> Callable[[], float]:
    """``per_call``, after ``count // 4`` (at least 8) untimed calls of the same arm: the cost of
    coming back to this case after another one falls on no arm's timed calls."""
    timed = per_call(call, count, clock, finish)
    warm = range(max(8, count // 4))

    def sample() -> float:
        result = None
        for _ in warm:
            result = call()
        if finish is not None:
            finish(result)
        return timed()

    return sample


def _stub_jit(fun: Callable[..., Any], **keywords: Any) -> Callable[..., Any]:
    def nothing(*args: Any, **kwargs: Any) -> None:
        return None

    return nothing


class Case:
    """One (N, S): the three functions, their arguments, and call thunks."""

    def __init__(self, leaves: int, statics: int) -> None:
        import jax.numpy as jnp

        from jaxrewrite import rewrite_source

        self.leaves, self.statics = leaves, statics
        filename = f"bench_leaves_{leaves}_{statics}.py"
        text = rewrite_source(module_text(leaves, statics), filename)
        assert "static_leaves, jax.jit" in text, "the TypedDict spelling was not rewritten"
        namespace = run_text(text, filename, {"__name__": filename[:-3]})
        arrays = {f"a{i}": jnp.full((2,), 1.0 / leaves) for i in range(leaves)}
        statics_values = [2, jnp.tanh] + [1] * (statics - 2)
        config = dict(arrays, **{f"s{i}": v for i, v in enumerate(statics_values)})
        jr, eq, jx = namespace["with_jaxrewrite"], namespace["with_equinox"], namespace["with_jax"]
        self.calls: dict[str, Callable[[], Any]] = {
            "jaxrewrite": lambda: jr(config),
            "equinox": lambda: eq(config),
            "jax": lambda: jx(arrays, *statics_values),
        }
        results = {name: call().tolist() for name, call in self.calls.items()}  # warm up: compile
        assert len({str(r) for r in results.values()}) == 1, results
        # The same rewritten text with the transform handed to static_leaves replaced by a stub
        # that does nothing: what is left is jaxrewrite's own per-call work (the split), alone.
        marker = "static_leaves, jax.jit,"
        assert text.count(marker) == 1, text
        stubbed: dict[str, Any] = {"__name__": namespace["__name__"], "_stub_jit": _stub_jit}
        exec(compile(text.replace(marker, "static_leaves, _stub_jit,"), filename, "exec"), stubbed)
        wrapper = stubbed["with_jaxrewrite"]
        self.wrapper_only: Callable[[], Any] = lambda: wrapper(config)

    def label(self) -> str:
        return f"N={self.leaves} S={self.statics}"


def bootstrap_ratio_of_differences(
    a: tuple[list[float], list[float]], b: tuple[list[float], list[float]], resamples: int = 400
) -> Ratio:
    """median(a0 - a1) / median(b0 - b1), with quartiles over bootstrap resamples of the rounds."""

    def estimate(rounds: list[int]) -> float:
        da = statistics.median(a[0][i] - a[1][i] for i in rounds)
        db = statistics.median(b[0][i] - b[1][i] for i in rounds)
        return da / db if db else float("inf")

    n = len(a[0])
    rng = random.Random(0)
    point = estimate(list(range(n)))
    if n < 4:
        return Ratio(point, point, point)
    boots = sorted(estimate([rng.randrange(n) for _ in range(n)]) for _ in range(resamples))
    return Ratio(point, boots[resamples // 4], boots[3 * resamples // 4])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int, default=41, help="interleaved rounds (one batch per arm each)"
    )
    parser.add_argument("--batch-ms", type=float, default=8.0, help="clock time per batch of calls")
    add_device_options(parser)
    parser.add_argument(
        "--quick", action="store_true", help="small N, a few tiny rounds: proves the script runs"
    )
    parser.add_argument("--json", type=Path, help="also write the rows as JSON (for run.py)")
    args = parser.parse_args(argv)
    clock = CLOCKS[args.clock]
    use_platform(args.platform)
    kind = device_kind(args.platform)
    if args.quick:
        sizes, many, rounds, batch = (2, 5, 10), 4, 3, 0.0005
    else:
        sizes, many, rounds, batch = (10, 100, 1000), 20, args.rounds, args.batch_ms / 1e3
    mid = sizes[1]

    cases = [Case(n, 2) for n in sizes] + [Case(mid, many)]
    grad_cases = [GradCase(n) for n in sizes]

    def finish(result: Any) -> None:
        result.block_until_ready()

    arms = {}
    for case in cases:
        for name, call in case.calls.items():
            count = 2 if args.quick else calibrate(call, batch, clock, minimum=5)
            arms[(case.label(), name)] = warmed(call, count, clock, finish)
        count = 2 if args.quick else calibrate(case.wrapper_only, batch, clock, minimum=5)
        arms[(case.label(), "split")] = warmed(case.wrapper_only, count, clock)
    for grad_case in grad_cases:
        for name, call in grad_case.calls.items():
            count = 2 if args.quick else calibrate(call, batch, clock, minimum=5)
            arms[("grad " + grad_case.label(), name)] = warmed(call, count, clock, grad_case.finish)
    # One case's arms at a time, interleaved among themselves: an arm that followed another
    # case's arms paid for bringing its case back (on the TPU, "N=1000: jaxrewrite / jax" read
    # 1.066 with the cases' arms in one rotation, 1.006 with one case alone).
    samples: dict[tuple[str, str], list[float]] = {}
    for label in dict.fromkeys(label for label, _ in arms):
        names = [name for case_label, name in arms if case_label == label]
        case_samples = interleave({name: arms[(label, name)] for name in names}, rounds)
        samples.update({(label, name): values for name, values in case_samples.items()})

    def us(case: Case, arm: str) -> float:
        return median(samples[(case.label(), arm)]) * 1e6

    def overhead(case: Case) -> tuple[list[float], list[float]]:
        return samples[(case.label(), "jaxrewrite")], samples[(case.label(), "jax")]

    rows = []
    for case in cases:
        jr, eq, jx = (samples[(case.label(), arm)] for arm in ("jaxrewrite", "equinox", "jax"))
        rows.append(
            Row(
                "leaves",
                f"leaves {case.label()}: jaxrewrite / equinox.filter_jit",
                paired_ratio(jr, eq),
                1.0,
                f"{us(case, 'jaxrewrite'):.1f} vs {us(case, 'equinox'):.1f} us/call",
            )
        )
        rows.append(
            Row(
                "leaves",
                f"leaves {case.label()}: jaxrewrite / jax.jit (JAX's own)",
                paired_ratio(jr, jx),
                1.05,
                f"{us(case, 'jaxrewrite'):.1f} vs {us(case, 'jax'):.1f} us/call, "
                f"overhead {paired_difference(jr, jx) * 1e6:.2f} us",
            )
        )
    for grad_case in grad_cases:
        key = "grad " + grad_case.label()
        jr, eq, jx = (samples[(key, arm)] for arm in ("jaxrewrite", "equinox", "jax"))
        context = f"{median(jr) * 1e6:.1f} vs {{}} us/call"
        rows.append(
            Row(
                "leaves",
                f"jit(grad) {grad_case.label()}: jaxrewrite / eqx filter_jit(filter_grad)",
                paired_ratio(jr, eq),
                1.0,
                context.format(f"{median(eq) * 1e6:.1f}"),
            )
        )
        rows.append(
            Row(
                "leaves",
                f"jit(grad) {grad_case.label()}: jaxrewrite / hand-split jit(grad)",
                paired_ratio(jr, jx),
                1.10,
                context.format(f"{median(jx) * 1e6:.1f}"),
            )
        )
    small, middle, large, wide = cases
    for what, a, b in (
        (f"split alone: N={large.leaves} / N={small.leaves} leaves (S=2)", large, small),
        (f"split alone: S={wide.statics} / S=2 statics (N={mid})", wide, middle),
    ):
        sa, sb = samples[(a.label(), "split")], samples[(b.label(), "split")]
        context = f"{median(sa) * 1e6:.2f} vs {median(sb) * 1e6:.2f} us/call"
        rows.append(Row("leaves", what, paired_ratio(sa, sb), None, context))
    for what, a, b in (
        (f"overhead over JAX: N={large.leaves} / N={small.leaves} leaves (S=2)", large, small),
        (f"overhead over JAX: S={wide.statics} / S=2 statics (N={mid})", wide, middle),
    ):
        ra, rb = overhead(a), overhead(b)
        context = (
            f"{paired_difference(*ra) * 1e6:.2f} vs {paired_difference(*rb) * 1e6:.2f} us "
            "(IQR: bootstrap)"
        )
        rows.append(Row("leaves", what, bootstrap_ratio_of_differences(ra, rb), None, context))
    for each in rows:
        each.device = kind
    print(f"# per-leaf statics: {rounds} rounds, clock={args.clock}, device={kind}, block last")
    print_table(rows, args.quick)
    dump(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
