"""A module's own alias of a marker is a marker wherever an annotation uses it, and that use
settles the alias: ``S = Static``, ``S = jaxrewrite.Static``, and the table of markers without
the run-time check, ``jaxrewrite.markers.UNCHECKED["Static"]`` (the same objects).

Before, the ledger read ``S`` as the marker itself and never as the alias, so ``check`` and the
import said JR008 ("used by no annotation") of an alias that an applied annotation used; and
``Static = UNCHECKED["Static"]`` read the key ``"Static"`` as a forward reference to the alias,
round a loop, and refused the module (JR127). Each spelling is rewritten, said nothing of at
import or by ``check``, and runs as the same program written by hand (results and traces).
"""

from __future__ import annotations

import textwrap
import warnings
from typing import Any

import jax.numpy as jnp
import pytest

from jaxrewrite import NotRewrittenWarning
from jaxrewrite.commands.check import check_text
from jaxrewrite.engine.rewrite import rewrite_source
from jaxrewrite.hook import pycfile

HEADER = (
    "# jaxrewrite: enable\nfrom typing import Annotated\nimport jax\nimport jaxrewrite\n"
    "import jaxrewrite.markers as jm\nfrom jaxrewrite.markers import UNCHECKED\nTRACES = []\n"
)

#: (the alias, the annotation of ``n``): each makes ``n`` static under jit.
SPELLINGS = {
    "name": ("from jaxrewrite import Static\nS = Static", "S[int]"),
    "attribute": ("S = jaxrewrite.Static", "S[int]"),
    "alias of an alias": ("S0 = jaxrewrite.Static\nS = S0", "S[int]"),
    "unchecked": ("Static = UNCHECKED['Static']", "Static[int]"),
    "unchecked through a module": ("S = jm.UNCHECKED['Static']", "S[int]"),
    "unchecked constant": ("STAT = UNCHECKED['STATIC']", "Annotated[int, STAT]"),
    "string annotation": ("S = jaxrewrite.Static", "'S[int]'"),
}

BODY = """
{alias}


@jax.jit
def power(x, n: {annotation}):
    TRACES.append(n)
    for _ in range(n - 1):
        x = x * x
    return x
"""

BY_HAND = """
import functools
import jax
TRACES = []


@functools.partial(jax.jit, static_argnums=(1,))
def power(x, n):
    TRACES.append(n)
    for _ in range(n - 1):
        x = x * x
    return x
"""


def _text(alias: str, annotation: str) -> str:
    return HEADER + BODY.format(alias=alias, annotation=annotation)


def _run(text: str) -> dict[str, Any]:
    """The text run as a module (compiled as it stands: here the rewrite, so the warning that
    fileless code fetching a marker may need one is beside the point)."""
    namespace: dict[str, Any] = {"__name__": "m"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotRewrittenWarning)
        exec(compile(text, "m.py", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_an_alias_an_applied_annotation_uses_is_settled_by_it(spelling: str) -> None:
    alias, annotation = SPELLINGS[spelling]
    text = _text(alias, annotation)
    assert [d.code for d in check_text(text, "m.py")] == []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pycfile.compile_source(text.encode(), "m.py")
    assert [str(w.message) for w in caught] == []
    rewritten = rewrite_source(text, "m.py")
    assert "static_argnums=(1,)" in rewritten and len(rewritten.splitlines()) == len(
        text.splitlines()
    )
    ours, hand = _run(rewritten), _run(textwrap.dedent(BY_HAND))
    for module in (ours, hand):
        for n in (3, 3, 2):
            module["power"](jnp.float32(2.0), n)
    assert (
        float(ours["power"](jnp.float32(2.0), 3))
        == float(hand["power"](jnp.float32(2.0), 3))
        == 16.0
    )
    assert ours["TRACES"] == hand["TRACES"] == [3, 2]  # static: Python control flow, no retrace


@pytest.mark.parametrize("spelling", ["name", "attribute", "unchecked"])
def test_an_alias_no_annotation_uses_is_still_reported(spelling: str) -> None:
    """The neighbour: an alias nothing uses does nothing, and is said to (JR008)."""
    alias, _ = SPELLINGS[spelling]
    text = HEADER + alias + "\n\n\n@jax.jit\ndef f(x):\n    return x\n"
    assert [d.code for d in check_text(text, "m.py")] == ["JR008"]


def test_unchecked_nodiff_under_custom_vjp() -> None:
    text = HEADER + textwrap.dedent(
        """
        ND = UNCHECKED["NoDiff"]


        @jax.custom_vjp
        def scale(x, k: ND[float]):
            return x * k
        """
    )
    assert [d.code for d in check_text(text, "m.py")] == []
    assert "nondiff_argnums=(1,)" in rewrite_source(text, "m.py")


def test_another_key_of_unchecked_is_no_marker() -> None:
    """Only the markers' own names are markers: another key denotes nothing jaxrewrite reads."""
    text = HEADER + "X = UNCHECKED['Other']\n\n\n@jax.jit\ndef f(x, n: X):\n    return x\n"
    assert "static_argnums" not in rewrite_source(text, "m.py")
