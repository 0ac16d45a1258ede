"""The walrus search looks only at statements that span a line holding ``:=`` (a speed-up of
``check``, issue 45): a walrus split over lines, or deep in a block, binds as it does on one
line."""

from __future__ import annotations

import textwrap

import pytest

import jaxrewrite

#: test_correctness's walrus module: f has a Static parameter, g none; which one is jitted?
SOURCE = (
    "# jaxrewrite: enable\nimport jax\nfrom jaxrewrite import Static\n\n\n"
    "def f(x, n: Static[int]):\n    return x\n\n\ndef g(x, n):\n    return x\n\n\n"
    "{binding}\ncompiled = jax.jit(f)\n"
)

#: (one line, the same split over lines or nested), each pair read alike.
SPELLINGS = [
    ("flag = (f := g)", "flag = (\n    f\n    := g\n)"),
    ("flag = FLAG and (f := g)", "flag = (FLAG and\n        (f :=\n         g))"),
    ("flag = g if FLAG else (f := g)", "flag = (g if FLAG\n        else (f := g))"),
    ("if (f := g):\n    pass", "if (\n    f := g\n):\n    pass"),
    (
        "if FLAG:\n    pass\nelse:\n    flag = (f := g)",
        "if FLAG:\n    pass\nelse:\n    flag = (\n        f := g)",
    ),
    ("assert (f := g)", "assert (\n    f := g)"),
    ("flag = [(f := g) for _ in ()]", "flag = [\n    (f := g)\n    for _ in ()\n]"),
]


def _read(binding: str) -> tuple[list[str], list[bool]]:
    analysis = jaxrewrite.analyze(SOURCE.format(binding=textwrap.dedent(binding)), "m.py")
    return [d.code for d in analysis.errors], [use.needs_edit for use in analysis.uses]


@pytest.mark.parametrize("one, split", SPELLINGS)
def test_a_split_walrus_binds_as_on_one_line(one: str, split: str) -> None:
    assert _read(split) == _read(one)


def test_a_walrus_only_in_a_string_or_comment_binds_nothing() -> None:
    assert _read('flag = ":="  # f := g') == _read("flag = 1")
