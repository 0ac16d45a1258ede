"""The one registry of rules (``jaxrewrite/engine/rulebook/rules.py``): every code is defined there
once, raise sites name a rule rather than a code string, the severity decides error or warning, the
merged codes are what check and migrate both report, and a retired code still means its successor
(the guide's side of each record, anchors and tables, is in test_docs_content.py)."""

from __future__ import annotations

import ast
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
from support import REPO, jaxrewrite

from jaxrewrite.engine.build import build_analysis
from jaxrewrite.engine.findings import lint_analysis
from jaxrewrite.engine.findings.checks.registry import CODES, RECORDS, RULES
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic, suppressed
from jaxrewrite.migrate import Reason, migrate_source

PACKAGE = REPO / "jaxrewrite"
#: Where a code may still be written as a string, and why.
ALLOWED = {
    "engine/rulebook/rules.py": "the registry itself",
    "errors.py": "RewriteError's default code, below the engine (it cannot import the registry)",
}


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """String constants that are a code (``"JR111"``): prose that names one (a help text) is not."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and re.fullmatch(r"JR\d{3}", node.value)
    ]


def test_no_raise_site_writes_a_code_string() -> None:
    """A code is written once, in its record (``rulebook/rules.py``, or the rule's own module in
    ``findings/checks/``, once): every other module names the rule."""
    found = {
        f"{path.relative_to(PACKAGE)}:{line}": value
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).as_posix() not in ALLOWED
        for line, value in _code_strings(path)
    }
    own = {m.__name__.rpartition(".")[2]: m.RULE.code for m in RULES}
    records = {
        where: code
        for where, code in found.items()
        if where.startswith("engine/findings/checks/")
        and own.get(where.split("/")[-1].split(".")[0]) == code
    }
    assert sorted(records.values()) == sorted(c for c in own.values() if c in records.values())
    assert len(records) == len(set(records.values()))  # once per module
    assert {k: v for k, v in found.items() if k not in records} == {}


def test_every_rule_is_named_somewhere() -> None:
    """No record without a use: each error and refusal is named (``rules.NAME``) outside their
    registry; the warnings' records are their modules' (``tests/rules/test_rule_modules.py``)."""
    text = "\n".join(
        p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py") if p.name != "rules.py"
    )
    names = [name for name, value in vars(rules).items() if isinstance(value, rules.Rule)]
    assert sorted(rules.RULES) == sorted(c for c in CODES if c in rules.RULES)
    assert len(names) == len(rules.RULES)
    assert [name for name in names if not re.search(rf"\brules\.{name}\b", text)] == []


def test_every_record_is_complete_and_its_own() -> None:
    """A fix text each, a severity each, no two codes with one summary, templates that parse."""
    for rule in RECORDS.values():
        assert (
            rule.fix.strip() and rule.summary.strip() and isinstance(rule.severity, rules.Severity)
        ), rule.code
        for template in (rule.message, *rule.variants.values()):
            list(string.Formatter().parse(template))  # a stray brace raises ValueError
    summaries = [r.summary for r in RECORDS.values()]
    assert len(set(summaries)) == len(summaries)
    prefix = {
        rules.Severity.WARNING: "JR0",
        rules.Severity.ERROR: "JR1",
        rules.Severity.REFUSAL: "JR2",
    }
    assert all(r.code.startswith(prefix[r.severity]) for r in RECORDS.values())


def test_retired_codes_are_never_reused_and_name_their_successor() -> None:
    assert not set(rules.RETIRED) & set(RECORDS)
    assert {old: new for old, new in rules.RETIRED.items()} == {
        "JR201": "JR111",
        "JR210": "JR112",
        "JR212": "JR109",
    }
    assert {r.rule.code for r in Reason} >= set(rules.RETIRED.values())


HEAD = (
    "# jaxrewrite: enable\nfrom functools import partial\nimport jax\n"
    "from jaxrewrite import Static\n\n"
)
#: The same spec, under a Static marker (check's input) and without it (migrate's).
MERGED = {
    "JR111": (
        "NUMS = [1]\n\n\n@partial(jax.jit, static_argnums=NUMS)\ndef f(x, n: Static[int]):\n"
        "    return x\n"
    ),
    "JR112": (
        "\n\n@partial(jax.jit, static_argnums=1, donate_argnums=1)\n"
        "def f(x, n: Static[int]):\n    return x\n"
    ),
    "JR109": (
        "KW = {}\n\n\n@partial(jax.jit, static_argnums=1, **KW)\ndef f(x, n: Static[int]):\n"
        "    return x\n"
    ),
}


@pytest.mark.parametrize("code", sorted(MERGED))
def test_a_merged_code_is_what_check_and_migrate_both_report(code: str) -> None:
    marked = HEAD + MERGED[code]
    found = [
        (d.code, d.line) for d in build_analysis(marked, "m.py", require_pragma=False).diagnostics
    ]
    (refusal,) = migrate_source(marked.replace(": Static[int]", ""), "m.py").refused
    assert found == [(code, 9)] and (refusal.reason.rule.code, refusal.function) == (code, "f")
    assert refusal.diagnostic("m.py").format("refusal").endswith(f"({code})")


def test_the_codes_hundred_decides_error_or_warning() -> None:
    """``is_error`` (the hook raises, the ledger says refused) reads the record's severity, which
    its code's hundred says: JR0nn warnings, JR1nn errors, JR2nn refusals."""
    finding = Diagnostic("JR002", "m", "m.py", 1, 1)
    error = Diagnostic("JR112", "m", "m.py", 1, 1)
    assert (finding.is_error, error.is_error) == (False, True)
    assert rules.Rule("JR150", "s", "m", "f").severity is rules.Severity.ERROR
    text = HEAD + "def f(x, n: Static[int]):\n    return x\n"
    (helper,) = lint_analysis(text, "m.py").diagnostics
    assert helper.code == "JR002" and helper not in lint_analysis(text, "m.py").errors


@pytest.mark.parametrize("comment", ["# noqa: JR201", "# noqa: jr201, JR002", "# noqa: JR111"])
def test_noqa_naming_a_retired_code_silences_its_successor(comment: str) -> None:
    finding = Diagnostic("JR111", "m", "m.py", 1, 1)
    assert suppressed(finding, [f"@partial(jax.jit, static_argnums=NUMS)  {comment}"])
    assert not suppressed(Diagnostic("JR112", "m", "m.py", 1, 1), [f"x  {comment}"])


def test_a_message_is_its_rules_template_filled() -> None:
    err = rules.NOT_LITERAL.error(
        _source("x = NUMS\n"), ast.parse("NUMS").body[0].value, keyword="k", what="int", spec="NUMS"
    )  # type: ignore[attr-defined]
    assert err.code == "JR111" and err.message.startswith(
        "k must be a literal int to merge with Static parameters, not 'NUMS';"
    )
    assert rules.TOO_DEEP.text("marker", expr="A", past="P").startswith(
        "cannot tell whether A holds a marker: P;"
    )


def _source(text: str):  # type: ignore[no-untyped-def]
    from jaxrewrite.engine.read.source import Source

    return Source(text, "m.py")


def test_a_retired_code_in_select_or_ignore_names_its_successor(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(HEAD + MERGED["JR112"], encoding="utf-8")
    assert "JR112" in jaxrewrite("check", "--select", "JR210", "m.py", cwd=tmp_path).stdout
    ignored = jaxrewrite("check", "--ignore", "jr210", "m.py", cwd=tmp_path)
    assert ignored.returncode == 0 and "JR112" not in ignored.stdout


@pytest.mark.parametrize("asked", ["JR111", "jr201"])
def test_check_explain_prints_the_record(asked: str, tmp_path: Path) -> None:
    done = jaxrewrite("check", "--explain", asked, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "JR111 (error): a static spec that is not a literal\n"
        "message: <keyword> must be a literal <what> to merge with Static parameters, not "
        "<spec>; write its "
        "value out literally (<keyword>=(...)), or drop <keyword> and annotate the "
        "parameters instead\n"
        "message: <keyword>=<spec> is not a literal<kind>; write its value out literally\n"
        "fix: write the spec's value out literally, or drop it and annotate the parameters\n"
        "see: docs/errors.md#9-errors\n"
    )
    unknown = jaxrewrite("check", "--explain", "JR999", cwd=tmp_path)
    assert (
        unknown.returncode == 2 and "unknown code: JR999" in unknown.stderr and unknown.stdout == ""
    )


def test_explain_prints_every_wording_and_links_to_the_configured_site(tmp_path: Path) -> None:
    """The record in full (an offline reader needs no link), and the link built from the one
    base URL setting (``rules.DOCS_URL``, or JAXREWRITE_DOCS_URL) to the site's page."""
    import os

    env = {**os.environ, "JAXREWRITE_DOCS_URL": "https://docs.example.org/jaxrewrite/"}
    done = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", "check", "--explain", "JR003"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "JR003 (warning)",
        "message",
        "message",
        "message",
        "fix",
        "see",
    ]
    assert (
        "message: <name> is Static but the call on line <line> passes it a <shown>" in done.stdout
    )
    assert lines[-1] == "see: https://docs.example.org/jaxrewrite/check.html#jaxrewrite-check"
    assert rules.docs_link("9-errors") == "docs/errors.md#9-errors"  # no site published: the file
