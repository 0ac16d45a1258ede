"""The warning rules as modules (``jaxrewrite/engine/findings/checks/``): each module is one rule
(its record, which says whether the import says it too, and its check), the registry lists every
one, and what the docs and ``check --explain`` say of a code is generated from its record."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jaxrewrite.commands.check import main
from jaxrewrite.engine.findings import analyze
from jaxrewrite.engine.findings.checks import registry
from jaxrewrite.engine.rulebook.rules import Rule, Severity

REPO = Path(__file__).resolve().parents[2]
CHECKS = REPO / "jaxrewrite" / "engine" / "findings" / "checks"
CHECK_PAGE = REPO / "docs" / "check.md"
ERRORS_PAGE = REPO / "docs" / "errors.md"
_TABLE = re.compile(r"\| code \| finding \|\n\| --- \| --- \|\n(?:\| `JR0\d\d` \|.*\|\n)+")


def test_every_rule_module_is_in_the_registry_once() -> None:
    """A module of checks/ is a rule the registry lists (a forgotten line fails here), with its
    record, whether the import says it, and its check (none where another pass finds it)."""
    modules = {p.stem for p in CHECKS.glob("*.py")} - {"__init__", "registry"}
    listed = [m.__name__.rpartition(".")[2] for m in registry.RULES]
    assert sorted(listed) == sorted(modules) and len(set(listed)) == len(listed)
    codes = [m.RULE.code for m in registry.RULES]
    assert len(set(codes)) == len(codes)
    for module in registry.RULES:
        assert isinstance(module.RULE, Rule) and module.RULE.severity is Severity.WARNING
        assert re.fullmatch(r"JR0\d\d", module.RULE.code), module.__name__
        assert isinstance(module.RULE.at_import, bool)
        assert getattr(module, "check", None) is None or callable(module.check)


def code_table() -> str:
    """The docs' table of the warning codes (docs/check.md), one row per rule, by code."""
    rows = sorted((m.RULE.code, m.RULE.summary + m.RULE.details) for m in registry.RULES)
    return "| code | finding |\n| --- | --- |\n" + "".join(f"| `{c}` | {t} |\n" for c, t in rows)


def refusal_table() -> str:
    """The docs' table of the refusals (docs/errors.md), one row per JR1nn record, by code; a
    quoted name of the summary ('x') is written as code (`x`) there."""
    rows = [(c, r) for c, r in registry.RECORDS.items() if c.startswith("JR1")]
    quoted = re.compile(r"(?<![A-Za-z])'([^']*?)'(?![A-Za-z])")
    texts = [(c, quoted.sub(r"`\1`", r.summary) + r.details) for c, r in rows]
    cells = "".join(f"| {c} | {text} |\n" for c, text in texts)
    return "| code | refused |\n| --- | --- |\n" + cells


def test_the_docs_table_of_codes_is_the_registrys(update_golden: bool) -> None:
    """docs/check.md's table of warning codes is ``code_table()``, read from the registry;
    ``--update-golden`` writes it there."""
    text = CHECK_PAGE.read_text(encoding="utf-8")
    (table,) = _TABLE.findall(text)
    if update_golden:
        CHECK_PAGE.write_text(text.replace(table, code_table()), encoding="utf-8")
        return
    assert table == code_table()
    assert re.findall(r"^\| `(JR0\d\d)` \|", table, re.MULTILINE) == sorted(
        m.RULE.code for m in registry.RULES
    )


def test_the_docs_table_of_refusals_is_the_records(update_golden: bool) -> None:
    """docs/errors.md's table of JR1nn codes is ``refusal_table()``, each row a record's
    summary and ``details``; ``--update-golden`` writes it there."""
    text = ERRORS_PAGE.read_text(encoding="utf-8")
    (table,) = re.findall(
        r"\| code \| refused \|\n\| --- \| --- \|\n(?:\| JR1\d\d \|.*\|\n)+", text
    )
    if update_golden:
        ERRORS_PAGE.write_text(text.replace(table, refusal_table()), encoding="utf-8")
        return
    assert table == refusal_table()
    codes = re.findall(r"^\| (JR1\d\d) \|", table, re.MULTILINE)
    assert codes == sorted(c for c in registry.CODES if "JR100" <= c < "JR200")


def test_explain_prints_the_rules_docs_text(capsys: pytest.CaptureFixture[str]) -> None:
    """``check --explain`` prints the record in full: the docs' words after the summary too."""
    from jaxrewrite.engine.findings.checks import held_in_pytree

    assert main(["--explain", "jr014"], "jaxrewrite") == 0
    first = capsys.readouterr().out.splitlines()[0]
    rule = held_in_pytree.RULE
    assert first == f"JR014 (warning): {rule.summary}{rule.details}" and rule.details


HEAD = "# jaxrewrite: enable\nimport jax\nfrom jaxrewrite import Static\n\n\n"
#: JR003 (said by check only) and JR002 (said at import too) in one module.
BOTH = HEAD + (
    "@jax.jit\ndef f(x, shape: Static[list]):\n    return x\n\n\n"
    "def g(x, n: Static[int]):\n    return x\n"
)


def test_the_import_says_the_rules_that_say_at_import() -> None:
    """The import runs the checks whose rule says ``at_import`` (JR002 here), not the others
    (JR003, whose marker acts: JAX refuses the value at the call)."""
    hook = [(d.code, d.line) for d in analyze(BOTH, "m.py", report=True).diagnostics]
    lint = [(d.code, d.line) for d in analyze(BOTH, "m.py", lint=True).diagnostics]
    assert lint == [("JR003", 7), ("JR002", 11)]
    assert hook == [("JR002", 11)]
    silenced = BOTH.replace("n: Static[int]):", "n: Static[int]):  # noqa: JR002")
    assert analyze(silenced, "m.py", report=True).diagnostics == []


#: A new rule: JR099 at every def named ``demo`` (said by ``check`` only).
NEW_RULE = """\
from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import Rule

RULE = Rule("JR099", "a def named demo", "{name!r} is a demo", "rename it")


def check(ctx: Context) -> list[Diagnostic]:
    return [
        Diagnostic.at(ctx.src, func, RULE, name=func.name)
        for func, _ in ctx.walk.tree.defs
        if func.name == "demo"
    ]
"""
#: What the copy of the package is asked: the finding, ``--explain`` and the docs' table.
ASK = """\
from jaxrewrite.commands.check import main
from jaxrewrite.engine.findings import analyze
from jaxrewrite.engine.findings.checks import registry

text = "# jaxrewrite: enable\\nimport jax\\nfrom jaxrewrite import Static\\n\\n\\n" + (
    "@jax.jit\\ndef demo(x, n: Static[int]):\\n    return x\\n"
)
print([(d.code, d.line) for d in analyze(text, "m.py", lint=True).diagnostics])
print([(d.code, d.line) for d in analyze(text, "m.py", report=True).diagnostics])
print([m.RULE.code for m in registry.RULES][:3], registry.CODES["JR099"])
main(["--explain", "JR099"], "jaxrewrite")
"""


def test_a_new_rule_is_one_module_and_one_registry_line(tmp_path: Path) -> None:
    """In a copy of the package, a module in checks/ and one line of ``registry.RULES`` make a
    rule: ``check`` reports it, the import does not (no ``at_import``), the registry (so the docs'
    table, ``code_table``) and ``--explain`` list it; its golden folder (``tests/rules/jr099_*/``)
    would be found by test_rule_goldens.py."""
    copy = tmp_path / "jaxrewrite"
    shutil.copytree(REPO / "jaxrewrite", copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "engine/findings/checks/demo.py").write_text(NEW_RULE, encoding="utf-8")
    registry_py = copy / "engine/findings/checks/registry.py"
    text = registry_py.read_text(encoding="utf-8")
    line = '        "float_static",  # JR016\n'
    assert text.count(line) == 1
    registry_py.write_text(text.replace(line, line + '        "demo",  # JR099\n'), "utf-8")
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(ASK)],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "", "JAX_PLATFORMS": "cpu"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found, hook, table, explained = done.stdout.split("\n", 3)
    assert (found, hook) == ("[('JR099', 7)]", "[]")
    assert table == "['JR003', 'JR016', 'JR099'] a def named demo"  # the docs' table reads it
    assert explained.startswith("JR099 (warning): a def named demo\nmessage: <name> is a demo\n")
