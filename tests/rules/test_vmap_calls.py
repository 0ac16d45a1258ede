"""JR011: every call of a vmapped function that does not pass a Static parameter by position
(issue 42, items 5 and 7).

vmap maps keyword arguments over axis 0 whatever ``in_axes`` says, and it needs one ``in_axes``
entry per positional argument passed: a Static parameter passed by keyword is traced, and one
left to its default makes the ``in_axes`` jaxrewrite writes one entry too long, so the call fails.
Each case is first labelled by running the rewritten program under JAX (the call fails, or
traces ``n``), then ``check`` must point at that call, through aliases, a walrus and transforms
around the vmapped function; calls that work are quiet.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import jaxrewrite
from jaxrewrite import rewrite_source

PRELUDE = """\
# jaxrewrite: enable
import functools
import jax
import jax.numpy as jnp
from jaxrewrite import Static


def f(x, n: Static[int] = 2):
    return x * sum(range(n))


vf = jax.vmap(f)
alias = vf
"""

#: Calls that fail or trace ``n`` under JAX, and must be JR011.
WRONG = {
    "keyword": "vf(jnp.ones(3), n=2)",
    "keyword through an alias": "alias(jnp.ones(3), n=2)",
    "keyword under jit": "jax.jit(vf)(jnp.ones(3), n=2)",
    "keyword through a walrus": "(w := vf)(jnp.ones(3), n=2)",
    "keyword under jit of an alias": "jax.jit(alias)(jnp.ones(3), n=2)",
    "default": "vf(jnp.ones(3))",
    "default through an alias": "alias(jnp.ones(3))",
    "default under jit": "jax.jit(vf)(jnp.ones(3))",
    "default at the call site": "jax.vmap(f)(jnp.ones(3))",
    "default under jit of a vmap": "jax.jit(jax.vmap(f))(jnp.ones(3))",
}

#: Calls that work: quiet.
RIGHT = {
    "by position": "vf(jnp.ones(3), 3)",
    "alias by position": "alias(jnp.ones(3), 3)",
    "under jit by position": "jax.jit(vf)(jnp.ones(3), 3)",
    "a partial is not the vmapped function's caller": "functools.partial(f, n=3)(jnp.ones(3))",
}


def _runs(source: str) -> bool:
    """Whether the rewritten program runs under JAX without error (the label)."""
    namespace: dict[str, Any] = {"__name__": "vmap_calls"}
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", jaxrewrite.NotRewrittenWarning
        )  # exec'd text is never the hook's
        try:
            exec(compile(rewrite_source(source, "m.py"), "m.py", "exec"), namespace)
        except Exception:  # noqa: BLE001 - the label: JAX refused the call or could not trace it
            return False
    return True


def _jr011_lines(source: str) -> list[int]:
    analysis = jaxrewrite.analyze(source, "m.py", lint=True)
    return [d.line for d in analysis.diagnostics if d.code == "JR011"]


@pytest.mark.parametrize("call", WRONG, ids=list(WRONG))
def test_a_call_that_does_not_pass_the_static_by_position_is_jr011(call: str) -> None:
    source = PRELUDE + "OUT = " + WRONG[call] + "\n"
    assert not _runs(source), "the label: JAX fails on this call"
    assert _jr011_lines(source) == [len(source.splitlines())]


@pytest.mark.parametrize("call", RIGHT, ids=list(RIGHT))
def test_a_call_that_works_is_quiet(call: str) -> None:
    source = PRELUDE + "OUT = " + RIGHT[call] + "\n"
    assert _runs(source)
    assert _jr011_lines(source) == []
