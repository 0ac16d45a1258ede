"""``jaxrewrite check PATH...``: every finding in files and folders, before anything runs.

flake8's conventions: ``path:line:col: CODE message`` (or JSON, or GitHub workflow
annotations), ``--select``/``--ignore`` by code prefix, ``# noqa`` and ``# noqa: CODE`` on the
reported line; exit 0 clean, 1 findings, 2 usage errors or unreadable input.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from jaxrewrite.commands.files import python_files
from jaxrewrite.engine.diagnostics import CODES, Diagnostic
from jaxrewrite.engine.header import might_opt_in
from jaxrewrite.engine.tracetime import may_trace_bytes

#: A noqa comment, bare or naming codes as flake8 spells them (see ``_suppressed``).
_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
FORMATS = ("text", "json", "github")


@dataclass(frozen=True)
class Options:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def wants(self, code: str) -> bool:
        if self.select and not code.startswith(self.select):
            return False
        return not (self.ignore and code.startswith(self.ignore))


def check_text(text: str, filename: str, options: Options = Options()) -> list[Diagnostic]:
    """The findings for one module's text, after ``--select``/``--ignore`` and ``# noqa``."""
    from jaxrewrite.engine.analyze import analyze
    from jaxrewrite.engine.tracetime import may_trace, trace_findings

    try:
        found = analyze(text, filename, require_pragma=False, lint=True).diagnostics if "jaxrewrite" in text else []
        if options.wants("JR006") and may_trace(text):
            found += trace_findings(text, filename)
    except SyntaxError as err:
        err.filename = filename
        found = [Diagnostic.from_error(err, "JR100")]
    lines = text.splitlines()
    return [d for d in found if options.wants(d.code) and not _suppressed(d, lines)]


def _suppressed(finding: Diagnostic, lines: list[str]) -> bool:
    line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
    match = _NOQA.search(line)
    if match is None:
        return False
    codes = match.group("codes")
    return codes is None or finding.code.upper() in {c.upper() for c in re.split(r"[,\s]+", codes) if c}


def check_path(path: str, options: Options, fix: bool = False) -> list[Diagnostic]:
    """The findings of one file; OSError/UnicodeDecodeError when it cannot be read as Python source.

    ``fix``: first make the JR006 parameters of a module that uses jaxrewrite Static, in place."""
    with open(path, "rb") as file:
        data = file.read()
    if not might_opt_in(data) and not may_trace_bytes(data):
        return []  # no "jaxrewrite" and no tracing transform named anywhere: nothing to find
    if fix and might_opt_in(data) and options.wants("JR006"):
        data = _fixed(path, data)
    return check_text(importlib.util.decode_source(data), path, options)


def _fixed(path: str, data: bytes) -> bytes:
    """``--fix``: the file's JR006 parameters made Static (jaxrewrite.migrate.fix), written atomically."""
    from jaxrewrite.commands.files import decode, write_atomically
    from jaxrewrite.migrate.fix import fix_source

    text, encoding = decode(data)
    try:
        result = fix_source(text, path)
    except SyntaxError:
        return data  # reported as JR100 by the check itself
    for why in result.refused:
        print(f"{path}: not fixed: {why}", file=sys.stderr)
    if not result.changed:
        return data
    new = result.text.encode(encoding)
    write_atomically(path, new)
    print(f"{path}: fixed: {', '.join(f'{p} of {f}' for f, p in result.fixed)} made Static", file=sys.stderr)
    return new


def render(findings: list[Diagnostic], form: str) -> str:
    if form == "json":
        return json.dumps([d.row() for d in findings], indent=2) + "\n"
    return "".join(d.format(form) + "\n" for d in findings)


def parser(prog: str) -> argparse.ArgumentParser:
    codes = ", ".join(sorted(CODES))
    ap = argparse.ArgumentParser(
        prog=f"{prog} check",
        description="Report Static/NoDiff annotations that would do nothing or be refused, without running anything.",
        epilog=f"codes: {codes} (see the guide, 'Catching mistakes')",
    )
    ap.add_argument("paths", nargs="+", metavar="PATH", help="a .py file, or a folder to search for .py files")
    ap.add_argument("--format", choices=FORMATS, default="text", help="text (default), json or github")
    ap.add_argument("--select", default="", help="comma-separated codes or code prefixes to report (default: all)")
    ap.add_argument("--ignore", default="", help="comma-separated codes or code prefixes not to report")
    ap.add_argument(
        "--fix", action="store_true", help="make the JR006 parameters Static in modules that use jaxrewrite (in place)"
    )
    return ap


def _codes(value: str) -> tuple[str, ...]:
    return tuple(code.strip().upper() for code in value.split(",") if code.strip())


def run(paths: Sequence[str], form: str, options: Options, prog: str, fix: bool = False) -> int:
    status = 0
    findings: list[Diagnostic] = []
    for path in python_files(paths):
        try:
            findings.extend(check_path(path, options, fix))
        except FileNotFoundError:
            print(f"{prog} check: {path}: no such file or folder", file=sys.stderr)
            status = 2
        except (OSError, UnicodeDecodeError, SyntaxError) as exc:  # SyntaxError: a bad coding cookie
            print(f"{prog} check: {path}: cannot read it as Python source: {exc}", file=sys.stderr)
            status = 2
    sys.stdout.write(render(findings, form))
    if status:
        return status
    return 1 if findings else 0


def main(argv: list[str], prog: str) -> int:
    try:
        ns = parser(prog).parse_args(argv)
    except SystemExit as exc:  # argparse printed its help or its error
        return exc.code if isinstance(exc.code, int) else 2
    select, ignore = _codes(ns.select), _codes(ns.ignore)
    unknown = [code for code in (*select, *ignore) if not any(known.startswith(code) for known in CODES)]
    if unknown:
        print(f"{prog} check: unknown code or prefix: {', '.join(unknown)}", file=sys.stderr)
        return 2
    return run(ns.paths, ns.format, Options(select, ignore), prog, ns.fix)
