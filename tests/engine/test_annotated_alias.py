"""An annotated assignment binds as a plain one does (issue 52 item 9): ``step: Callable =
jax.vmap(f)`` is read wherever ``step = jax.vmap(f)`` is, by every finding that reads the
module's assignments (JR011's callers of a vmapped function, JR006's call sites of a jitted or
pmapped alias, a local dict indexed by a traced value). Each module below is checked twice,
once with ``step = `` and once with ``step: Any = ``: the same findings, and at least one.
The case ``fail_annotated_alias_str`` in tests/rules/tracetime_cases shows JAX rejects such a call.
"""

from __future__ import annotations

import pytest

from jaxrewrite.engine.findings import lint_analysis

HEAD = (
    "# jaxrewrite: enable\nfrom typing import Any\nimport jax\nimport jax.numpy as jnp\n"
    "from jaxrewrite import Static\n\n\n"
)

MODULES = {
    # JR011: a Static parameter passed by keyword to what vmap made, at module level and in a def.
    "vmap_module": (
        "def f(x, n: Static[int]):\n    return x * n\n\n\n{step}jax.vmap(f)\n\n\ndef go(x):\n"
        "    return step(x, n=3)\n"
    ),
    "vmap_local": (
        "def f(x, n: Static[int]):\n    return x * n\n\n\ndef go(x):\n    {step}jax.vmap(f)\n"
        "    return step(x, n=3)\n"
    ),
    # JR011 at a call that leaves a Static parameter with a default out.
    "vmap_default": (
        "def f(x, n: Static[int] = 2):\n    return x * n\n\n\n{step}jax.vmap(f)\n\n\n"
        "def go(x):\n    return step(x)\n"
    ),
    # JR006: a str passed through a jitted alias, and through a pmapped one.
    "jit_alias": (
        "def f(x, act):\n    return x\n\n\ndef go(x):\n    {step}jax.jit(f)\n"
        "    return step(x, 'relu')\n"
    ),
    "pmap_alias": (
        "def f(x, act):\n    return x\n\n\n{step}jax.pmap(f)\nstep(jnp.ones((1, 3)), 'relu')\n"
    ),
    # JR006: a traced index into a local dict bound by an annotated assignment.
    "local_dict": "@jax.jit\ndef f(x, k):\n    {step}{{0: 1.0, 1: 2.0}}\n    return x * step[k]\n",
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_an_annotated_assignment_binds_as_a_plain_one(name: str) -> None:
    def found(bind: str) -> list[tuple[str, int, str]]:
        text = HEAD + MODULES[name].format(step=bind)
        return [(d.code, d.line, d.message) for d in lint_analysis(text, "m.py").diagnostics]

    plain = found("step =      ")  # as wide as the annotated one: the same columns
    assert plain, "the plain assignment's finding is what this compares with"
    assert found("step: Any = ") == plain
