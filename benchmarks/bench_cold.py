"""Cold rewrite: ``rewrite_source`` + ``compile`` of a large opted-in module vs ``compile`` alone.

This is what the import hook pays for a module it has not cached yet. Arms, interleaved in one
process (garbage collected before every sample, untimed; jaxrewrite's lru caches are cleared
before every rewrite too, so each rewrite is as cold as the first in a fresh process):

- ``compile``: ``compile(original)``: the baseline, what Python pays without the hook.
- ``hook``: what the hook pays on a cache miss (``pycfile.compile_source``: the one route,
  ``rewrite_source`` then ``compile`` of its text, with the warnings of markers that do nothing).
  Target (issue 51): realistic <= 3.0 x compile; the dense module is reported, with no target.
- ``rewrite + compile``: ``compile(rewrite_source(original))``: the text route alone.
- ``floor``: ``ast.parse(original)`` (with the cyclic GC paused, as rewrite_source pauses it) +
  ``compile(original)``: the least any source rewriter that parses the module can pay. Its ratio
  shows how much of the target is left to the engine.
- ``rewrite``: ``rewrite_source(original)`` alone (parse, plan, splice).
- ``compile rewritten``: ``compile(rewritten text)``: the rewritten decorators are longer (a
  ``partial`` call with two keyword tuples per bare decorator), so it costs more to compile.
- ``text floor``: ``ast.parse(original)`` + ``compile(rewritten text)``, no analysis at all: the
  least a rewriter can pay that parses the source and compiles the text it prints (exactness:
  the hook compiles the very text ``show`` prints and the golden files pin).

Two generated modules: ``realistic`` (thousands of lines; hundreds of Static functions with
10-20 line bodies; a mix of ``@jax.jit``, ``@partial(jax.jit, static_argnames=...)``, methods,
undecorated helpers and ``g = jax.jit(f)`` call sites) and ``dense`` (every function decorated,
two-line bodies), reported separately. ``--profile`` prints cProfile's top functions by tottime
for ``rewrite_source`` on the realistic module.

Usage: python benchmarks/bench_cold.py [--rounds N] [--scale X] [--clock cpu|wall] [--profile]
[--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import ast
import cProfile
import gc
import io
import pstats
import random
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from _timing import CLOCKS, Row, dump, interleave, median, paired_ratio, print_table  # noqa: E402

from jaxrewrite.engine.rewrite import rewrite_source  # noqa: E402
from jaxrewrite.hook.pycfile import compile_source  # noqa: E402

#: The issue's targets for the hook's cold cost, by module.
TARGETS: dict[str, float | None] = {"realistic": 3.0, "dense": None}

HEADER = '''\
"""Generated benchmark module: numerical kernels written the way JAX users write them."""
# jaxrewrite: enable
from __future__ import annotations

import functools
import math
from functools import partial
from typing import Any, Callable, NamedTuple, Sequence

import jax
import jax.numpy as jnp
from jax import lax

from jaxrewrite import Static

Array = jax.Array
DEFAULT_DTYPE = jnp.float32
EPS = 1e-6
'''

# Bodies are real-looking code: loops driven by a static, branches on static strings, nested
# helpers, comprehensions, f-strings in errors. {i} makes every function distinct.
JIT = '''

@jax.jit
def step_{i}(x: Array, y: Array, n: Static[int], mode: Static[str] = "sum") -> Array:
    """Apply n damped updates of y to x and reduce according to mode ({i})."""
    if n < 0:
        raise ValueError(f"n must be non-negative, got {{n}}")
    scale = 1.0 / math.sqrt(n + {i} + 1)
    for k in range(n):
        # damped update; the damping depends on the (static) step index
        damping = 1.0 / (k + 2)
        x = x + damping * jnp.tanh(y * scale) - EPS * x
        y = jnp.roll(y, shift=1, axis=-1)
    if mode == "sum":
        return x.sum()
    if mode == "mean":
        return x.mean()
    return jnp.linalg.norm(x)
'''

PARTIAL = '''

@partial(jax.jit, static_argnames=("axis",))
def reduce_{i}(x: Array, weights: Array, axis: int, depth: Static[int], *, kind: Static[str] = "softmax") -> Array:
    """Weighted reduction of x along axis, refined depth times ({i})."""
    w = jnp.asarray(weights, dtype=x.dtype)
    if kind == "softmax":
        w = jax.nn.softmax(w, axis=-1)
    elif kind == "relu":
        w = jax.nn.relu(w)
    else:
        raise ValueError(f"unknown kind {{kind!r}}")
    out = jnp.sum(x * w, axis=axis, keepdims=True)
    for _ in range(depth):
        residual = x - out
        out = out + 0.5 * jnp.mean(residual, axis=axis, keepdims=True)
    stats = {{"min": out.min(), "max": out.max(), "id": {i}}}
    return out / (stats["max"] - stats["min"] + EPS)
'''  # noqa: E501

DONATE = '''

@functools.partial(jax.jit, donate_argnums=(0,))
def update_{i}(state: Array, grads: Array, lr: float, clip: Static[float] = 1.0) -> Array:
    """One clipped SGD step on a donated state buffer ({i})."""
    norm = jnp.sqrt(jnp.sum(grads * grads))
    factor = jnp.minimum(1.0, clip / (norm + EPS))
    grads = grads * factor
    new_state = state - lr * grads
    # keep the state finite: replace any NaN produced by a bad step
    new_state = jnp.where(jnp.isfinite(new_state), new_state, state)
    return new_state.astype(state.dtype)
'''

CLASS = '''

class Layer{i}(NamedTuple):
    width: int
    activation: Callable[[Array], Array] = jax.nn.gelu


class Block{i}:
    """A small model block with jitted methods ({i})."""

    def __init__(self, width: int, depth: int = 2) -> None:
        self.width = width
        self.depth = depth
        self.layers = [Layer{i}(width) for _ in range(depth)]

    def __hash__(self) -> int:
        return hash((type(self), self.width, self.depth))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Block{i}) and (self.width, self.depth) == (other.width, other.depth)

    @jax.jit
    def apply(self: Static, params: Sequence[Array], x: Array, train: Static[bool] = False) -> Array:
        for layer, w in zip(self.layers, params):
            x = layer.activation(x @ w)
            if train:
                x = x * 0.9
        return x

    @partial(jax.jit, static_argnums=(0,))
    def init(self, key: Array, dtype: Static[Any] = DEFAULT_DTYPE) -> list[Array]:
        keys = jax.random.split(key, self.depth)
        return [jax.random.normal(k, (self.width, self.width), dtype) / math.sqrt(self.width) for k in keys]

    @staticmethod
    @jax.jit
    def zeros(n: Static[int]) -> Array:
        return jnp.zeros((n, n))

    def describe(self) -> str:
        return f"Block{i}(width={{self.width}}, depth={{self.depth}})"
'''  # noqa: E501

HELPER = '''

def _helper_{i}(x: Array, y: Array, alpha: float = 0.5) -> Array:
    """An undecorated helper: nothing for the rewriter to do ({i})."""
    diff = x - y
    total = jnp.zeros_like(x)
    for power in (1, 2, 3):
        total = total + alpha ** power * diff ** power
    mask = jnp.abs(total) < 1e3
    total = jnp.where(mask, total, jnp.sign(total) * 1e3)
    pairs = [(a, b) for a, b in zip(range(3), range(3, 6)) if a < b]
    offsets = {{a: b - a for a, b in pairs}}
    shift = sum(offsets.values()) / len(offsets)
    return total + shift * EPS
'''

CALL_SITE = '''

def kernel_{i}(x: Array, steps: Static[int], unroll: Static[bool] = False) -> Array:
    """Jitted at a call site below, not by a decorator ({i})."""
    def body(carry: Array, _: Any) -> tuple[Array, None]:
        return jnp.sin(carry) + 0.1 * carry, None

    out, _ = lax.scan(body, x, None, length=steps, unroll=unroll)
    return out


kernel_{i}_jit = jax.jit(kernel_{i})
'''

# (template, how many per 100 blocks) for the realistic module.
MIX = [(JIT, 30), (PARTIAL, 20), (DONATE, 10), (HELPER, 25), (CLASS, 10), (CALL_SITE, 5)]

DENSE = """

@jax.jit
def f_{i}(x, n: Static[int]):
    return x * n


@partial(jax.jit, static_argnames=("m",))
def g_{i}(x, n: Static[int], m: int = 2):
    return x * n + m
"""


def realistic_module(blocks: int = 250, seed: int = 0) -> str:
    """About 19 lines per block: 250 blocks are ~4800 lines, ~250 Static functions."""
    rng = random.Random(seed)
    templates = [template for template, weight in MIX for _ in range(weight)]
    parts = [HEADER]
    for i in range(blocks):
        parts.append(rng.choice(templates).format(i=i))
    return "".join(parts)


def dense_module(pairs: int = 500) -> str:
    return HEADER + "".join(DENSE.format(i=i) for i in range(pairs))


def clear_caches() -> None:
    """Empty every lru_cache in jaxrewrite, as in a fresh process (internals read, not changed)."""
    for name, module in list(sys.modules.items()):
        if name == "jaxrewrite" or name.startswith("jaxrewrite."):
            for obj in vars(module).values():
                if callable(getattr(obj, "cache_clear", None)):
                    obj.cache_clear()


def measure(source: str, name: str, rounds: int, clock: Callable[[], float]) -> list[Row]:
    filename = f"bench_cold_{name}.py"
    rewritten = rewrite_source(source, filename)
    data = source.encode()
    assert rewritten != source and "static_argnums" in rewritten
    compile(rewritten, filename, "exec", dont_inherit=True)

    def timed(work: Callable[[], object], cold: bool = False) -> Callable[[], float]:
        def sample() -> float:
            if cold:
                clear_caches()
            start = clock()
            work()
            return clock() - start

        return sample

    def comp(text: str) -> Callable[[], object]:
        return lambda: compile(text, filename, "exec", dont_inherit=True)

    def rewrite_and_compile() -> object:
        return compile(rewrite_source(source, filename), filename, "exec", dont_inherit=True)

    def parse_paused() -> None:
        collecting = gc.isenabled()
        gc.disable()  # as rewrite_source does while the tree is alive: the floor gets the same help
        try:
            ast.parse(source, filename)
        finally:
            if collecting:
                gc.enable()

    def floor() -> object:
        parse_paused()
        return compile(source, filename, "exec", dont_inherit=True)

    def text_floor(text: str) -> Callable[[], object]:
        def run() -> object:
            parse_paused()
            return compile(text, filename, "exec", dont_inherit=True)

        return run

    arms = {
        "compile": timed(comp(source)),
        "hook": timed(lambda: compile_source(data, filename), cold=True),
        "rewrite + compile": timed(rewrite_and_compile, cold=True),
        "floor": timed(floor),
        "rewrite": timed(lambda: rewrite_source(source, filename), cold=True),
        "compile rewritten": timed(comp(rewritten)),
        "text floor": timed(text_floor(rewritten)),
    }
    samples = interleave(arms, rounds, collect=True)
    functions = sum(isinstance(node, ast.FunctionDef) for node in ast.walk(ast.parse(source)))
    print(
        f"# {name} module: {source.count(chr(10))} lines, {functions} functions, "
        f"{source.count('Static[')} Static annotations, {rewritten.count('static_arg')} "
        "keywords written"
    )

    def row(what: str, arm: str, target: float | None = None, base: str = "compile") -> Row:
        context = f"{median(samples[arm]) * 1e3:.1f} vs {median(samples[base]) * 1e3:.1f} ms"
        return Row(
            "cold",
            f"cold {name}: {what}",
            paired_ratio(samples[arm], samples[base]),
            target,
            context,
        )

    return [
        row("hook: rewrite, compile the text / compile", "hook", TARGETS[name]),
        row("rewrite+compile / compile", "rewrite + compile"),
        row("floor parse+compile / compile", "floor"),
        row("text floor: parse + compile rewritten / compile", "text floor"),
        row("rewrite_source alone / compile", "rewrite"),
        row("compile rewritten / compile original", "compile rewritten"),
    ]


def profile(source: str, top: int) -> str:
    clear_caches()
    profiler = cProfile.Profile()
    profiler.enable()
    rewrite_source(source, "bench_cold_realistic.py")
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int, default=11, help="interleaved rounds (one sample per arm each)"
    )
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the module sizes")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    parser.add_argument(
        "--profile", action="store_true", help="cProfile rewrite_source on the realistic module"
    )
    parser.add_argument("--top", type=int, default=10, help="functions to list with --profile")
    parser.add_argument(
        "--quick", action="store_true", help="tiny modules, two rounds: proves the script runs"
    )
    parser.add_argument("--json", type=Path, help="also write the rows as JSON (for run.py)")
    args = parser.parse_args(argv)
    scale, rounds = (0.02, 2) if args.quick else (args.scale, args.rounds)
    clock = CLOCKS[args.clock]

    realistic = realistic_module(max(10, int(250 * scale)))
    dense = dense_module(max(5, int(500 * scale)))
    rows = measure(realistic, "realistic", rounds, clock) + measure(dense, "dense", rounds, clock)
    print(f"# cold rewrite: {rounds} rounds, clock={args.clock}")
    print_table(rows, args.quick)
    dump(rows, args.json)
    if args.profile:
        print(profile(realistic, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
