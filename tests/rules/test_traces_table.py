"""JR012's table (``engine.rulebook.table.TRACES``), row by row against the real JAX and Flax.

Each row says that a JAX function traces the arguments it calls the function it is given with,
and which of them. For every row: ``check`` reports a marked def handed to it at that argument
(the def is also jitted elsewhere, so no other finding covers it), by position and by keyword
where the function's signature allows; and the same program, run, shows the marked parameter
receiving a JAX value, not the Python one: the row's claim, proven on the installed library
rather than assumed.
"""

from __future__ import annotations

import ast
import importlib

import pytest
from golden_cases import execute

from jaxrewrite import rewrite_source
from jaxrewrite.engine.findings import analyze
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import TRACES

HEAD = (
    "# jaxrewrite: enable\nimport jax\nimport jax.numpy as jnp\nfrom flax import nnx\n"
    "from jaxrewrite import Static\n\nSEEN = []\n\n\n"
)

#: (the marked def, the call that hands it over): ``f`` records whether its marked parameter
#: ``n`` is a tracer. Keys are the rows' names; ``#k`` marks a second spelling of one row.
CASES: dict[str, tuple[str, str]] = {
    "jax.eval_shape": (
        "def f(x, n: Static[int]):\n    SEEN.append(n)\n    return x",
        "jax.eval_shape(f, 1.0, 3)",
    ),
    "jax.eval_shape#kw": (
        "def f(x, *, n: Static[int]):\n    SEEN.append(n)\n    return x",
        "jax.eval_shape(f, 1.0, n=3)",
    ),
    "jax.linearize": (
        "def f(x, n: Static[float]):\n    SEEN.append(n)\n    return x * n",
        "jax.linearize(f, 1.0, 3.0)",
    ),
    "jax.vjp": (
        "def f(x, n: Static[float]):\n    SEEN.append(n)\n    return x * n",
        "jax.vjp(f, 1.0, 3.0)",
    ),
    "jax.jvp": (
        "def f(x, n: Static[float]):\n    SEEN.append(n)\n    return x * n",
        "jax.jvp(f, (1.0, 3.0), (1.0, 0.0))",
    ),
    "jax.jvp#kw": (
        "def f(x, n: Static[float]):\n    SEEN.append(n)\n    return x * n",
        "jax.jvp(fun=f, primals=(1.0, 3.0), tangents=(1.0, 0.0))",
    ),
    "jax.linear_transpose": (
        "def f(x, n: Static[float]):\n    SEEN.append(n)\n    return x + n",
        "jax.linear_transpose(f, 1.0, 3.0)",
    ),
    "jax.closure_convert": (
        "def f(x, n: Static[float]):\n    SEEN.append(n)\n    return x * n",
        "jax.closure_convert(f, 1.0, 3.0)",
    ),
    "jax.lax.scan": (
        "def f(c, n: Static[int]):\n    SEEN.append(n)\n    return c, n",
        "jax.lax.scan(f, 0, jnp.arange(2))",
    ),
    "jax.lax.scan#kw": (
        "def f(c, n: Static[int]):\n    SEEN.append(n)\n    return c, n",
        "jax.lax.scan(f=f, init=0, xs=jnp.arange(2))",
    ),
    "jax.lax.map": (
        "def f(n: Static[int]):\n    SEEN.append(n)\n    return n",
        "jax.lax.map(f, jnp.arange(2))",
    ),
    "jax.lax.fori_loop": (
        "def f(n: Static[int], c):\n    SEEN.append(n)\n    return c",
        "jax.lax.fori_loop(0, 2, f, 0)",
    ),
    "jax.lax.while_loop": (
        "def f(n: Static[int]):\n    SEEN.append(n)\n    return n < 2",
        "jax.lax.while_loop(f, lambda c: c + 1, 0)",
    ),
    "jax.lax.while_loop#body": (
        "def f(n: Static[int]):\n    SEEN.append(n)\n    return n + 1",
        "jax.lax.while_loop(lambda c: c < 2, f, 0)",
    ),
    "jax.lax.cond": (
        "def f(x, n: Static[int]):\n    SEEN.append(n)\n    return x",
        "jax.lax.cond(True, f, f, 1.0, 3)",
    ),
    "jax.lax.switch": (
        "def f(x, n: Static[int]):\n    SEEN.append(n)\n    return x",
        "jax.lax.switch(0, [f, f], 1.0, 3)",
    ),
    "jax.lax.associative_scan": (
        "def f(a, n: Static[int]):\n    SEEN.append(n)\n    return a + n",
        "jax.lax.associative_scan(f, jnp.arange(4))",
    ),
    "jax.lax.reduce": (
        "def f(a, n: Static[int]):\n    SEEN.append(n)\n    return a + n",
        "jax.lax.reduce(jnp.arange(4), 0, f, (0,))",
    ),
    "flax.nnx.eval_shape": (
        "def f(x, n: Static[int]):\n    SEEN.append(n)\n    return x",
        "nnx.eval_shape(f, jnp.ones(2), 3)",
    ),
    "flax.nnx.vjp": (
        "def f(x, n: Static[float]):\n    SEEN.append(n)\n    return x * n",
        "nnx.vjp(f, 1.0, 3.0, graph=False)",
    ),
    "flax.nnx.jvp": (
        "def f(x, n: Static[float]):\n    SEEN.append(n)\n    return x * n",
        "nnx.jvp(f, (1.0, 3.0), (1.0, 0.0), graph=False)",
    ),
    "flax.nnx.fori_loop": (
        "def f(n: Static[int], c):\n    SEEN.append(n)\n    return c",
        "nnx.fori_loop(0, 2, f, jnp.float32(0))",
    ),
    "flax.nnx.while_loop": (
        "def f(n: Static[int]):\n    SEEN.append(n)\n    return n < 2",
        "nnx.while_loop(f, lambda c: c + 1, jnp.int32(0))",
    ),
    "flax.nnx.cond": (
        "def f(x, n: Static[int]):\n    SEEN.append(n)\n    return x",
        "nnx.cond(True, f, f, jnp.ones(2), 3)",
    ),
    "flax.nnx.switch": (
        "def f(x, n: Static[int]):\n    SEEN.append(n)\n    return x",
        "nnx.switch(0, (f, f), jnp.ones(2), 3)",
    ),
}


def _program(case: str) -> tuple[str, list[tuple[str, int, int]]]:
    """The program, and the JR012 findings it must get: one at each ``f`` handed over."""
    define, call = CASES[case]
    text = HEAD + define + "\n\n\napplied = jax.jit(f)\nout = " + call + "\n"
    node = ast.parse(text).body[-1].value  # type: ignore[attr-defined]
    parts = [*node.args, *(k.value for k in node.keywords)]
    handed = [
        n for part in parts for n in ast.walk(part) if isinstance(n, ast.Name) and n.id == "f"
    ]
    return text, [("JR012", n.lineno, n.col_offset + 1) for n in handed]


def test_every_row_has_a_case() -> None:
    assert {case.partition("#")[0] for case in CASES} >= set(TRACES) - {
        # decorators: tests/rules/test_ledger.py
        "jax.experimental.custom_partitioning.custom_partitioning",
        "jax.custom_batching.custom_vmap",
    }


@pytest.mark.parametrize("case", CASES)
def test_check_reports_the_marked_def_where_it_is_handed_over(case: str) -> None:
    text, expected = _program(case)
    found = [(d.code, d.line, d.col) for d in _jr012(analyze(text, "m.py", lint=True).diagnostics)]
    assert found == expected and expected, found


@pytest.mark.parametrize("case", CASES)
def test_the_row_is_true_the_marked_parameter_gets_a_jax_value(case: str) -> None:
    """A tracer (or, for ``associative_scan`` outside a jit, an array slice): never the Python
    value a Static marker promises."""
    import jax

    owner, _, attr = case.partition("#")[0].rpartition(".")
    if not hasattr(importlib.import_module(owner), attr):
        pytest.skip(f"{case.partition('#')[0]} is not in the installed {owner.partition('.')[0]}")
    text, _ = _program(case)
    module = execute(rewrite_source(text, "m.py"), "m.py", "traces_table_case")
    assert module.SEEN and all(isinstance(n, (jax.core.Tracer, jax.Array)) for n in module.SEEN), (
        module.SEEN
    )


MARKED = "def f(x, n: Static[float] = 2.0):\n    return x * n\n\n\napplied = jax.jit(f)\n"


@pytest.mark.parametrize(
    "call, reported",
    [
        ("jax.jvp(f, (1.0,), (1.0,))", False),  # n keeps its default: not reached
        ("jax.jvp(f, (1.0, 3.0), (1.0, 0.0))", True),
        ("jax.jvp(f, primals, tangents)", True),  # a tuple not written out: cannot be counted
        ("jax.jvp(f, (*primals,), tangents)", True),
        ("jax.vjp(f, 1.0)", False),
        ("jax.vjp(f, 1.0, n=3.0)", True),
        ("jax.eval_shape(f, 1.0, **options)", True),  # ** may hold n
        ("jax.lax.switch(0, [jnp.sin, f], 1.0)", False),
        ("jax.lax.switch(0, [jnp.sin, f], 1.0, 3.0)", True),
        ("jax.lax.switch(0, branches, 1.0, 3.0)", False),  # no def of this module in view
    ],
)
def test_what_reaches_the_marked_parameter(call: str, reported: bool) -> None:
    text = (
        HEAD
        + "primals = tangents = (1.0, 3.0)\noptions = {}\nbranches = [jnp.sin]\n"
        + MARKED
        + "out = "
        + call
        + "\n"
    )
    codes = [d.code for d in _jr012(analyze(text, "m.py", lint=True).diagnostics)]
    assert codes == (["JR012"] if reported else []), codes


def _jr012(found: list[Diagnostic]) -> list[Diagnostic]:
    """The findings but JR016, which a ``Static[float]`` under ``jax.jit`` gets as well."""
    return [d for d in found if d.code != "JR016"]
