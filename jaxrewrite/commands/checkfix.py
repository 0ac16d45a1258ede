"""``check --fix`` (and ``--fix --diff``, ruff's preview): what check knows how to fix, and a word
on stderr for each fix ("Fixed", or "Would fix" under ``--diff``) and for what it does not fix.

JR015: the marker import added; JR001: the pragma line added; JR006: the parameter made
``Static``, or in a plain-JAX module the keywords written into the transform's call
(``jaxrewrite.migrate.fix``). No fix is written that is not proved: the fixed text is checked
again, and where the fix left its finding, made a new one or would not compile, nothing is
written and stderr says why.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from jaxrewrite.commands.files import decode, unified_diff, write_atomically, write_source
from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.findings.checks import missing_pragma, traced_argument, unbound_marker
from jaxrewrite.engine.findings.checks.unbound_marker import unbound_markers
from jaxrewrite.engine.findings.tracetime import may_trace_bytes
from jaxrewrite.engine.read.source import Source
from jaxrewrite.errors import TOO_DEEP, RewriteError
from jaxrewrite.header import PRAGMA, header_statements, scan_header
from jaxrewrite.migrate.imports import (
    first_import_block,
    marker_import_edit,
    marker_import_lines,
    statement_start,
)

if TYPE_CHECKING:
    from jaxrewrite.config import Options
    from jaxrewrite.engine.rulebook.diagnostics import Diagnostic

#: ``check_text``, passed in by the check command (this module is below it: no import back up).
Findings = Callable[[str, str, "Options"], "list[Diagnostic]"]


def fixed_text(
    path: str,
    text: str,
    options: Options,
    notes: list[str],
    findings: Findings,
    verb: str = "Fixed",
) -> str:
    """The text with what ``--fix`` fixes fixed, or ``text`` itself where the fix is not proved;
    ``notes``: a line per fix (``verb``: "Fixed", or "Would fix") and per refusal."""
    before = findings(text, path, options)
    said: list[str] = []
    meant: set[str] = set()
    new = text
    unbound, pragma = unbound_marker.RULE.code, missing_pragma.RULE.code
    if options.wants(unbound, path) and any(d.code == unbound for d in before):
        new = _with_imports(new, path, said)
        meant.add(unbound)
    if options.wants(pragma, path) and any(d.code == pragma for d in findings(new, path, options)):
        new = _with_pragma(new, path, said, notes)
        meant.add(pragma)
    traced = traced_argument.RULE.code
    if options.wants(traced, path) and may_trace_bytes(new.encode("utf-8", "surrogatepass")):
        from jaxrewrite.migrate.fix import fix_source

        try:
            result = fix_source(new, path)
        except (SyntaxError, *TOO_DEEP):
            return text  # reported as JR100 by the check itself
        notes.extend(f"{path}: not fixed: {why}" for why in result.refused)
        said.extend(f"{traced}: {line}" for line in result.said)
        if result.changed:
            meant.add(traced)
        new = result.text
    if new == text:
        return text
    why = _disproved(path, text, new, options, findings, before, meant)
    if why is not None:
        notes.append(f"{path}: not fixed: {why}; nothing written")
        return text
    notes.extend(f"{path}: {verb} {line}" for line in said)
    return new


def _disproved(
    path: str,
    text: str,
    new: str,
    options: Options,
    findings: Findings,
    before: list[Diagnostic],
    meant: set[str],
) -> str | None:
    """Why the fixed text is no fix, or None: a finding it meant to remove is left, a new one
    appears, or the module would not compile or be rewritten as the import hook rewrites it."""
    try:
        compile(new, path, "exec", dont_inherit=True)
        if scan_header(new).enabled:
            from jaxrewrite.engine.rewrite import rewrite_source

            compile(rewrite_source(new, path), path, "exec", dont_inherit=True)
    except (SyntaxError, RewriteError) as err:
        return f"the fixed module would fail to import ({type(err).__name__}: {err})"
    after = findings(new, path, options)
    then, now = Counter(d.code for d in before), Counter(d.code for d in after)
    left = sorted(code for code in meant if code != traced_argument.RULE.code and now[code])
    if (
        traced_argument.RULE.code in meant
        and now[traced_argument.RULE.code] >= then[traced_argument.RULE.code]
    ):
        left.append(traced_argument.RULE.code)
    if left:
        return f"{', '.join(left)} still reported after the fix"
    new_codes = sorted((now - then).keys())
    if new_codes:
        return f"the fix would add {', '.join(new_codes)} findings"
    return None


def _with_imports(text: str, path: str, said: list[str]) -> str:
    """``from jaxrewrite import ...`` for the marker names used unbound, where isort puts it."""
    tree = ast.parse(text, path)
    names = sorted({node.id for node, _, _ in unbound_markers(tree)})
    src = Source(text, path)
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = "".join(line + nl for line in marker_import_lines([(n, n) for n in names]))
    index = header_statements(tree.body)
    block = first_import_block(tree.body, index)
    if block:
        edit = marker_import_edit(block, src, lines, nl)
    else:
        at = statement_start(tree.body, index, src)
        edit = splice.Edit(at, at, lines)
    said.append(f"{unbound_marker.RULE.code}: added '{lines.strip()}'")
    return splice.apply(text, [edit])


def _with_pragma(text: str, path: str, said: list[str], notes: list[str]) -> str:
    """The pragma as a new first line, after a ``#!`` line and a PEP 263 coding line."""
    lines = text.splitlines(keepends=True)
    at = 0
    while (
        at < min(2, len(lines))
        and lines[at].startswith("#")
        and ((at == 0 and lines[at].startswith("#!")) or "coding" in lines[at])
    ):
        at += 1
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    new = "".join([*lines[:at], PRAGMA + newline, *lines[at:]])
    if not scan_header(new).enabled:  # pragma: no cover - the header rule moved: never guess
        notes.append(f"{path}: not fixed: JR001: the pragma cannot go first in this header")
        return text
    said.append(f"JR001: added '{PRAGMA}' at line {at + 1}")
    return new


def fix_file(
    path: str, data: bytes, options: Options, findings: Findings, diff: TextIO | None = None
) -> tuple[bytes, bool]:
    """Fix the file in place (atomically): its new bytes, and whether anything changed; with
    ``diff``, write a unified diff there instead and keep the bytes. Notes go to stderr."""
    text, encoding = decode(data, path)
    notes: list[str] = []
    new = fixed_text(
        path, text, options, notes, findings, "Would fix" if diff is not None else "Fixed"
    )
    for note in notes:
        print(note, file=sys.stderr)
    if new == text:
        return data, False
    if diff is not None:
        write_source(diff, unified_diff(text, new, path.replace("\\", "/")), encoding, diff=True)
        return data, True
    encoded = new.encode(encoding)
    write_atomically(path, encoded)
    return encoded, True
