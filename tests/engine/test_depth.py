"""The engine reads every module Python's parser accepts, however deep (engine/read/depth.py).

Generated code nests deeper than Python's recursion limit: a sum of thousands of terms, a chain
of a thousand ``elif``. Each shape below, with its deep part ``DEEP`` in place, must give
exactly the output of the same module with a shallow placeholder there, the deep part put back:
the rewrite (text and the hook's compiled code), the migration, and check's findings. Before
engine/read/depth.py each shape raised RecursionError from one walk or another (scopes, filters,
the ledger), where ``python`` ran the module.
"""

from __future__ import annotations

import sys
import threading

import pytest

from jaxrewrite import rewrite_source
from jaxrewrite.engine.findings import lint_analysis
from jaxrewrite.engine.read import depth
from jaxrewrite.hook import pycfile
from jaxrewrite.migrate import migrate_source

SUM = " + ".join(["x"] * 2500)
ELIFS = "".join(f"    elif n == {i}:\n        return x * {i}\n" for i in range(1, 1200))

#: Module bodies with ``{D}`` where the deep part goes.
SHAPES = {
    "sum in a body": "@jax.jit\ndef f(x, n: Static[int]):\n    return {D} + n\n",
    "sum at module level": (
        "x = 1.0\ny = {D}\n\n\n@jax.jit\ndef f(x, n: Static[int]):\n    return x * n + y\n"
    ),
    "sum in a lambda in a default": (
        "@jax.jit\ndef f(x, n: Static[int], m=(lambda x: {D})(1.0)):\n    return x * n + m\n"
    ),
    "sum under a walrus": "@jax.jit\ndef f(x, n: Static[int]):\n    return (z := {D}) * n\n",
    "sum in a comprehension": (
        "@jax.jit\ndef f(x, n: Static[int]):\n    return sum([{D} for _ in range(n)])\n"
    ),
    "sum at a call site": (
        "def f(x, n: Static[int]):\n    return x * n\n\n\ng = jax.jit(f)\nx = 1.0\n"
        "print(g({D}, 3))\n"
    ),
    "a thousand elifs": (
        "@jax.jit\ndef f(x, n: Static[int]):\n    if n == 0:\n        return x\n{D}    return x\n"
    ),
}
HEAD = "# jaxrewrite: enable\nimport jax\nfrom jaxrewrite import Static\n\n\n"


def _parts(shape: str) -> tuple[str, str]:
    """(the deep part, a shallow stand-in found nowhere else in the module)."""
    if shape == "a thousand elifs":
        return ELIFS, "    elif n == -1:\n        return x\n"
    return SUM, "stand_in"


def _texts(shape: str, head: str = HEAD) -> tuple[str, str]:
    deep, shallow = _parts(shape)
    return head + SHAPES[shape].replace("{D}", deep), head + SHAPES[shape].replace("{D}", shallow)


def _put_back(text: str, shape: str) -> str:
    """The shallow module's output with the deep part back in the stand-in's place."""
    deep, shallow = _parts(shape)
    assert text.count(shallow) == 1, text
    return text.replace(shallow, deep)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_deep_module_rewrites_as_its_shallow_twin(shape: str) -> None:
    deep, shallow = _texts(shape)
    assert rewrite_source(deep, "m.py") == _put_back(rewrite_source(shallow, "m.py"), shape)
    code = pycfile.compile_source(deep.encode(), "m.py")
    assert code == compile(rewrite_source(deep, "m.py"), "m.py", "exec", dont_inherit=True)
    assert (
        lint_analysis(deep, "m.py", True).diagnostics
        == lint_analysis(shallow, "m.py", True).diagnostics
    )


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_deep_module_migrates_as_its_shallow_twin(shape: str) -> None:
    head = "from functools import partial\n\nimport jax\n\n\n"
    deep, shallow = (
        text.replace(": Static[int]", "")
        .replace("@jax.jit\n", "@partial(jax.jit, static_argnums=(1,))\n")
        .replace("jax.jit(f)", "jax.jit(f, static_argnums=(1,))")
        for text in _texts(shape, head)
    )
    ours, twin = migrate_source(deep, "m.py"), migrate_source(shallow, "m.py")
    assert ours.changed and twin.changed
    assert ours.text == _put_back(twin.text, shape)


def test_the_deeper_attempt_runs_once_and_leaves_the_limit_as_it_was() -> None:
    """A walk that fails in the deep thread too fails as it would have (no third attempt), and
    the interpreter's recursion limit and thread stack size are restored either way."""
    calls: list[str] = []

    @depth.any_depth
    def always_too_deep() -> None:
        calls.append(threading.current_thread().name)
        raise RecursionError("walk")

    limit, stack = sys.getrecursionlimit(), threading.stack_size()
    with pytest.raises(RecursionError, match="walk"):
        always_too_deep()
    assert calls[0] == threading.current_thread().name and len(calls) == 2
    assert calls[1].startswith("jaxrewrite-any-depth")  # the pool's one thread
    assert (sys.getrecursionlimit(), threading.stack_size()) == (limit, stack)
