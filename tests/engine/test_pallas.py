"""examples/pallas_matmul.py, a Pallas kernel whose block sizes, accumulator dtype and flags are
Static and NoDiff, run in Pallas's interpret mode on CPU and compared with the same kernel written
by hand in plain JAX: outputs, gradients, traces and compiled entries.

The hand version is the example's text with the two decorators spelled out
(``nondiff_argnums``, ``static_argnames``) and the markers removed; nothing else differs, so
any difference is the rewrite's. jax's own Pallas TPU ops migrated to annotations are pinned in
golden/migrate/pallas_*.in (tests/migrate/test_migrate.py: the migration and its round trip).
"""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import jax
import jax.numpy as jnp
import pytest
from golden_cases import ROOT, execute
from migrate_support import check_module
from packaging.version import Version

from jaxrewrite import rewrite_source

pl = pytest.importorskip("jax.experimental.pallas")
if Version(jax.__version__) < Version("0.4.31"):  # BlockSpec took (index_map, block_shape) before
    pytest.skip("BlockSpec(block_shape, index_map) needs jax 0.4.31", allow_module_level=True)

EXAMPLE = ROOT / "examples" / "pallas_matmul.py"
NAME = "examples/pallas_matmul.py"
SOURCE = EXAMPLE.read_text(encoding="utf-8")

STATIC = ("block_m", "block_n", "acc_dtype", "relu", "interpret")


def by_hand() -> str:
    """The example in plain JAX: the specs a JAX user writes, no jaxrewrite."""
    text = SOURCE.replace("# jaxrewrite: enable\n", "")
    text = text.replace("from jaxrewrite import NoDiff, Static\n", "")
    nondiff = "nondiff_argnums=(2, 3, 4, 5, 6)"
    text = text.replace("@jax.custom_vjp\n", f"@functools.partial(jax.custom_vjp, {nondiff})\n")
    text = text.replace("@jax.jit\n", f"@functools.partial(jax.jit, static_argnames={STATIC!r})\n")
    text = re.sub(r": (?:Static|NoDiff)(?:\[\w+\])?", "", text)
    assert "import NoDiff" not in text and not re.search(r": (?:Static|NoDiff)\b", text)
    return text


#: (block_m, block_n, acc_dtype, relu): each a different kernel; the last repeats the first.
CALLS = [
    (8, 8, jnp.float32, False),
    (16, 8, jnp.float32, True),
    (8, 16, "float32", True),
    (8, 8, jnp.float32, False),
]


def run(module: object) -> tuple[list[object], list[object], int]:
    """Outputs and gradients over ``CALLS``, the traces, and the entry point's compiled entries."""
    x = jnp.arange(16 * 8, dtype=jnp.float32).reshape(16, 8) / 50 - 1
    w = jnp.linspace(-1, 1, 8 * 16, dtype=jnp.float32).reshape(8, 16)
    dense = module.dense  # type: ignore[attr-defined]
    outs, grads = [], []
    for bm, bn, acc, relu in CALLS:
        outs.append(dense(x, w, bm, bn, acc, relu, interpret=True).tolist())
        keywords = {"block_m": bm, "block_n": bn, "acc_dtype": acc, "relu": relu, "interpret": True}

        def loss(x: Any, w: Any, keywords: dict[str, Any] = keywords) -> Any:
            return (dense(x, w, **keywords) ** 2).sum()

        grads.append([g.tolist() for g in jax.grad(loss, argnums=(0, 1))(x, w)])
    return outs + grads, list(module.TRACES), dense._cache_size()  # type: ignore[attr-defined]


def test_the_example_rewritten_runs_as_the_hand_written_kernel() -> None:
    rewritten = execute(rewrite_source(SOURCE, NAME), NAME, "pallas_rewritten")
    hand = execute(by_hand(), NAME, "pallas_hand", rewritten=False)
    got, want = run(rewritten), run(hand)
    assert got[0] == want[0]  # outputs and gradients, exactly
    assert got[1] == want[1] and got[2] == want[2]  # the same traces, the same compiled entries
    # each of the three kernels traced once called and once under grad, compiled once; the
    # fourth call repeats the first (by position, and by keyword under grad): no trace, no compile
    assert len(got[1]) == 6 and len(set(got[1])) == 3 and got[2] == 3, (got[1], got[2])


def test_the_kernel_matches_plain_jax() -> None:
    """Not only the same as the hand-written kernel: right (a dot, then the flag's relu)."""
    module = execute(rewrite_source(SOURCE, NAME), NAME, "pallas_check")
    x = jnp.arange(16 * 8, dtype=jnp.float32).reshape(16, 8) / 50 - 1
    w = jnp.ones((8, 16), jnp.float32)
    out = module.dense(x, w, 16, 8, relu=True, interpret=True)
    assert jnp.allclose(out, jnp.maximum(x @ w, 0), atol=1e-6)
    grad = jax.grad(lambda w: module.dense(x, w, relu=True, interpret=True).sum())(w)
    assert jnp.allclose(grad, jax.grad(lambda w: jnp.maximum(x @ w, 0).sum())(w), atol=1e-5)


def test_without_the_rewrite_the_block_sizes_are_traced() -> None:
    """The same text run plainly fails: the statics are what the rewrite provides (the dtype
    handed to jit as an argument, the block sizes traced)."""
    module = execute(SOURCE, NAME, "pallas_plain", rewritten=False)
    with pytest.raises(Exception, match="cannot be interpreted as a JAX array|Tracer"):
        module.dense(jnp.ones((16, 8)), jnp.ones((8, 16)), 8, 8, interpret=True)


def test_migrate_takes_the_hand_written_kernel_back_to_annotations() -> None:
    result, problems = check_module(by_hand(), NAME)
    assert not problems and not result.refused
    assert [(m.function, [p for p, _ in m.params]) for m in result.migrated] == [
        ("matmul", list(STATIC)),
        ("dense", list(STATIC)),
    ]


def test_the_example_runs_through_the_runner() -> None:
    argv = [sys.executable, "-m", "jaxrewrite", str(EXAMPLE)]
    done = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("2 traces")
