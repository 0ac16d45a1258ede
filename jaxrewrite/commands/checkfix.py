"""``check --fix`` (and ``--fix --diff``, ruff's preview): what check knows how to fix, and a word
on stderr for what it does not.

* JR001 (Static/NoDiff in a module that does not opt in): the pragma line is added at the top,
  after a ``#!`` line and a coding cookie, so that the module opts in as its annotations say.
* JR006 (a parameter a transform traces that must be a Python value): made ``Static`` in a module
  that uses jaxrewrite (``jaxrewrite.migrate.fix``); in a plain-JAX module nothing is changed, and
  stderr says why (pass the static keywords to the transform instead).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from jaxrewrite.commands.files import decode, unified_diff, write_atomically, write_source
from jaxrewrite.engine.findings.tracetime import may_trace_bytes
from jaxrewrite.errors import TOO_DEEP
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.header import PRAGMA, scan_header

if TYPE_CHECKING:
    from jaxrewrite.commands.check import Options
    from jaxrewrite.engine.rulebook.diagnostics import Diagnostic

#: ``check_text``, passed in by the check command (this module is below it: no import back up).
Findings = Callable[[str, str, "Options"], "list[Diagnostic]"]


def fixed_text(path: str, text: str, options: Options, notes: list[str], findings: Findings) -> str:
    """The text with what ``--fix`` fixes fixed; ``notes``: a line per fix and per refusal."""
    pragma = rules.NO_PRAGMA.code
    if options.wants(pragma, path) and any(d.code == pragma for d in findings(text, path, options)):
        text = _with_pragma(text, path, notes)
    if not options.wants(rules.TRACED.code, path) or not may_trace_bytes(text.encode("utf-8", "surrogatepass")):
        return text
    from jaxrewrite.migrate.fix import fix_source

    try:
        result = fix_source(text, path)
    except (SyntaxError, *TOO_DEEP):
        return text  # reported as JR100 by the check itself
    notes.extend(f"{path}: not fixed: {why}" for why in result.refused)
    if result.changed:
        notes.append(f"{path}: fixed: {', '.join(f'{p} of {f}' for f, p in result.fixed)} made Static")
    return result.text


def _with_pragma(text: str, path: str, notes: list[str]) -> str:
    """The pragma as a new first line, after a ``#!`` line and a PEP 263 coding line."""
    lines = text.splitlines(keepends=True)
    at = 0
    while at < min(2, len(lines)) and lines[at].startswith("#") and (
        (at == 0 and lines[at].startswith("#!")) or "coding" in lines[at]
    ):
        at += 1
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    new = "".join([*lines[:at], PRAGMA + newline, *lines[at:]])
    if not scan_header(new).enabled:  # pragma: no cover - the header rule moved; say so, never guess
        notes.append(f"{path}: not fixed: JR001: the pragma cannot go first in this header")
        return text
    notes.append(f"{path}: fixed: JR001: added '{PRAGMA}' at line {at + 1}")
    return new


def fix_file(
    path: str, data: bytes, options: Options, findings: Findings, diff: TextIO | None = None
) -> tuple[bytes, bool]:
    """Fix the file in place (atomically): its new bytes, and whether anything changed; with
    ``diff``, write a unified diff there instead and keep the bytes. Notes go to stderr."""
    text, encoding = decode(data)
    notes: list[str] = []
    new = fixed_text(path, text, options, notes, findings)
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
