"""JR015's text pre-filter (issue 55, check's speed over jax): a module the analysis does not read
is parsed for unbound markers only where a marker may head an annotation, and each way of
writing one there is still found."""

from __future__ import annotations

import pytest

from jaxrewrite.engine.findings.checks.unbound_marker import unbound_findings

#: Each an unbound marker heading an annotation: the finding's line and column (1-based).
FOUND = {
    "subscript": ("def f(x: Static[int]):\n    pass\n", (1, 10)),
    "bare": ("def f(x: Static):\n    pass\n", (1, 10)),
    "then a parameter": ("def f(x: Static, y):\n    pass\n", (1, 10)),
    "keyword-only default": ("def f(*, n: NoDiff=1):\n    pass\n", (1, 13)),
    "field": ("class A:\n    x: Static\n", (2, 8)),
    "field then a statement": ("x: Static; y = 1\n", (1, 4)),
    "parenthesized": ("def f(x: (\n        Static[int])):\n    pass\n", (2, 9)),
    "after a comment": ("def f(\n    x:  # why\n    Static[int],\n):\n    pass\n", (3, 5)),
    "after a continuation": ("x: \\\n    Static[int] = 1\n", (2, 5)),
    "subscript on the next line": ("def f(x: (Static\n        [int])):\n    pass\n", (1, 11)),
    "last in the file": ("x: Static", (1, 4)),
}


@pytest.mark.parametrize("text,at", FOUND.values(), ids=list(FOUND))
def test_each_marker_heading_an_annotation_is_found(text: str, at: tuple[int, int]) -> None:
    found = unbound_findings(text, "m.py")
    assert [(d.code, d.line, d.col) for d in found] == [("JR015", *at)], found


#: Only mentions: a docstring's word, a call, a longer name, a string annotation. The syntax
#: error after each shows the module is not parsed (unbound_findings raises where it parses).
MENTIONS = [
    '"""\n    y: Static scalar integer giving the exponent.\n"""\n',
    "statics = {k : Static(v) for k in d}\n",
    "def f(x: MyStatic[int]):\n    pass\n",
    'def f(x: "Static[int]"):\n    pass\n',
]


@pytest.mark.parametrize("text", MENTIONS)
def test_a_module_that_only_mentions_a_marker_is_not_parsed(text: str) -> None:
    assert unbound_findings(text + "def (:\n", "m.py") == []
    with pytest.raises(SyntaxError):
        unbound_findings(text + "x: Static\ndef (:\n", "m.py")
