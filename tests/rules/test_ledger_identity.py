"""The ledger settles a marker by identity, not by line: a finding speaks for a marker when it
was raised at a node of that marker's def header (decorators, signature), class or statement
(``Diagnostic.about``). A finding about something else that happens to sit on the same line
(a one-line body, two statements joined by ``;``) leaves the marker to be reported on its own.
"""

from __future__ import annotations

import gc
import textwrap
import warnings
from typing import Any

import pytest

from jaxrewrite import RewriteWarning
from jaxrewrite.engine.analysis import State
from jaxrewrite.engine.findings import analyze
from jaxrewrite.engine.findings.checks.registry import RULES
from jaxrewrite.hook import pycfile

HEAD = "# jaxrewrite: enable\nimport jax\nfrom jaxrewrite import NoDiff, Static\nk = [1]\n"


def _findings(
    body: str, **how: Any
) -> tuple[str, list[tuple[int, int, str]], dict[str, tuple[State, str | None]]]:
    text = HEAD + textwrap.dedent(body)
    analysis = analyze(text, "m.py", **how)
    found = [(d.line, d.col, d.code) for d in analysis.diagnostics]
    return text, found, {e.name: (e.state, e.code) for e in analysis.ledger}


def _at(text: str, needle: str) -> tuple[int, int]:
    """The 1-based line and column of ``needle``'s first occurrence."""
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(needle)


#: A one-line body whose call site is refused (JR111, about ``h``), on the line of ``f``'s
#: signature, whose NoDiff does nothing under jit: by line, that refusal "settled" it.
ONE_LINE_BODY = """
    def h(b: Static[int]): return b
    @jax.jit
    def f(x, n: NoDiff[int]): return jax.jit(h, static_argnums=k)(x)
    """

#: Two statements on one line: a def whose unhashable Static default is reported (JR003), and in
#: its body a variable annotation whose marker does nothing: by line, JR003 "settled" it too.
JOINED = """
    @jax.jit
    def f(x, n: Static[list] = []): y: Static[int] = 1; return x
    """


def test_a_refusal_inside_another_defs_line_does_not_settle_a_marker() -> None:
    text, found, ledger = _findings(ONE_LINE_BODY, lint=True)
    assert ledger["h.b"] == (State.REFUSED, "JR111")
    assert ledger["f.n"] == (State.REPORTED, "JR008")
    assert (*_at(text, "n: NoDiff"), "JR008") in found
    assert [code for *_, code in found].count("JR111") == 1


def test_a_finding_about_one_statement_does_not_settle_another_on_its_line() -> None:
    text, found, ledger = _findings(JOINED, lint=True)
    assert ledger["f.n"] == (State.APPLIED, None)
    assert ledger["y"] == (State.REPORTED, "JR008")
    assert (*_at(text, "n: Static"), "JR003") in found
    assert (*_at(text, "y: Static"), "JR008") in found


def test_the_import_says_the_marker_that_does_nothing() -> None:
    """The hook's report (lint without JR003, the ledger without JR009) says it as check does;
    ``ONE_LINE_BODY``'s import raises its JR111 instead."""
    text, found, _ = _findings(JOINED, report=True)
    assert found == [(*_at(text, "y: Static"), "JR008")]


#: Two aliases named ``S``: the module's, which ``f``'s applied parameter reads, and a local one
#: that no annotation reads. By name, the local one "ended as its uses end" with ``f.n``.
SAME_NAME_ALIASES = """
    S = Static[int]
    def helper():
        S = Static[int]
        return S
    @jax.jit
    def f(x, n: S):
        return x * n
    """


def test_an_alias_ends_as_the_uses_of_that_assignment_end_not_of_its_name() -> None:
    text, found, ledger = _findings(SAME_NAME_ALIASES, lint=True)
    assert ledger["f.n"] == (State.APPLIED, None)
    module_line = _at(text, "S = Static")[0]
    local_line, indent = _at(text, "    S = Static")
    assert found == [(local_line, indent + 4, "JR008")]
    assert module_line != local_line


#: A refused call site names ``f``: the local def it means is refused, not the module's ``f``,
#: whose NoDiff does nothing under jit. By name, the refusal "settled" both.
SAME_NAME_DEFS = """
    @jax.jit
    def f(x, n: NoDiff[int]):
        return x
    def outer():
        def f(x, n: Static[int]):
            return x
        return jax.jit(f, static_argnums=k)
    """


def test_a_refused_call_settles_the_def_it_names_there_not_another_of_that_name() -> None:
    text, found, _ = _findings(SAME_NAME_DEFS, lint=True)
    module_f = _at(text, "n: NoDiff")
    assert (*module_f, "JR008") in found
    assert [code for *_, code in found].count("JR111") == 1
    entries = analyze(HEAD + textwrap.dedent(SAME_NAME_DEFS), "m.py", lint=True).ledger
    assert {(e.line, e.state, e.code) for e in entries} == {
        (module_f[0], State.REPORTED, "JR008"),
        (_at(text, "n: Static")[0], State.REFUSED, "JR111"),
    }


@pytest.mark.parametrize("body", [JOINED, SAME_NAME_ALIASES], ids=["joined", "same_name_aliases"])
def test_the_hook_says_what_check_says(body: str) -> None:
    """The hook's pipeline warns of the very marker ``check`` reports, and holds the same notes
    for its cache."""
    text = HEAD + textwrap.dedent(body)
    _, found, _ = _findings(body, lint=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = pycfile.compile_source(text.encode(), "m.py")
    said = [
        (str(w.message).split()[0], w.lineno)
        for w in caught
        if issubclass(w.category, RewriteWarning)
    ]
    at_import = {m.RULE.code for m in RULES if m.RULE.at_import}
    assert said == [(code, line) for line, _, code in found if code in at_import]
    assert [(text.split()[0], line) for text, line in pycfile.held(code)] == said


def test_the_ledger_leaves_no_cycle_that_keeps_the_tree() -> None:
    """The analysis is freed by reference counting when the hook is done with it: the index and
    the ledger hold no cycle that would keep the tree."""
    text = HEAD + textwrap.dedent(SAME_NAME_ALIASES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        analyze(text, "m.py", lint=True)
        # Until nothing is left: the finalizers an earlier test's objects run in one collection
        # may leave garbage for the next (8 objects once, in one CI leg's order of tests).
        for _ in range(10):
            if not gc.collect():
                break
        hows: list[dict[str, Any]] = [{"lint": True}, {"report": True}]
        for how in hows:
            analyze(text, "m.py", **how)
            assert gc.collect() == 0, how
