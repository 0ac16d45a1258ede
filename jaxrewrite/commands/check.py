"""``jaxrewrite check [PATH...]``: every finding in files and folders, before anything runs.

ruff's and flake8's conventions: ``path:line:col: CODE message`` (or JSON, or GitHub workflow
annotations), ``.`` when no path is given, ``-`` for standard input, ``--select``/``--ignore`` by
code prefix, ``--exclude`` globs, ``# noqa`` and ``# noqa: CODE`` on the reported line, settings
from ``[tool.jaxrewrite]`` (``jaxrewrite.config``), and ruff's summary line after the text form;
exit 0 clean, 1 findings, 2 usage errors or unreadable input.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from jaxrewrite import config as settings
from jaxrewrite.commands import colour
from jaxrewrite.commands.files import python_files
from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.diagnostics import CODES, Diagnostic
from jaxrewrite.engine.filters import FAST
from jaxrewrite.header import might_opt_in
from jaxrewrite.engine.imported import may_apply_imported_bytes
from jaxrewrite.engine.tracetime import may_trace_bytes
from jaxrewrite.errors import TOO_DEEP, too_deep

#: A noqa comment, bare or naming codes as flake8 spells them (see ``_suppressed``).
_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
FORMATS = ("text", "json", "github")


EXIT_STATUS = """\
exit status:
  0    no findings
  1    findings (after --select, --ignore, per-file-ignores and # noqa)
  2    usage errors, a bad configuration, or input that cannot be read as Python source
  141  the reader of the output went away first (`| head`): the rest is not printed

suppressing one finding: a `# noqa` comment on the reported line silences every code there,
`# noqa: JR002` (or `# noqa: JR002,JR003`) only those codes, as flake8 and ruff read them.

configuration: [tool.jaxrewrite] in the nearest pyproject.toml that has one (from the current
folder upward), or the file --config names: select, ignore, exclude, per-file-ignores, packages.
"""


@dataclass(frozen=True)
class Options:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    #: ``[tool.jaxrewrite]``, for ``per-file-ignores``.
    config: settings.Config = settings.Config()

    def wants(self, code: str, path: str | None = None) -> bool:
        if self.select and not code.startswith(self.select):
            return False
        ignore = self.ignore if path is None else (*self.ignore, *self.config.ignored_codes(path))
        return not (ignore and code.startswith(ignore))


def lint_analysis(text: str, filename: str, trace: bool = True) -> Analysis:
    """The one analysis ``check`` and ``show`` read: with or without the pragma, the lint findings,
    the ledger and (``trace``, where ``may_trace``) the trace-time pass (JR006); the rewrite it
    calls for is the hook's (the filters change no rewrite: tests/test_prefilters.py)."""
    from jaxrewrite.engine.analyze import analyze
    from jaxrewrite.engine.tracetime import PASS, TRACE, may_trace

    traced = trace and may_trace(text)
    return analyze(
        text,
        filename,
        require_pragma=False,
        lint=True,
        imports=import_reader(filename),
        filters=TRACE if traced else FAST,
        passes=(PASS,) if traced else (),
    )


def _outside(text: str, filename: str, options: Options) -> list[Diagnostic]:
    """A module that never names jaxrewrite: arguments that must be static (JR006), and marked
    defs of other modules it transforms (JR013), from one parse."""
    from jaxrewrite.engine.analysis import TreePass
    from jaxrewrite.engine.analyze import analyze
    from jaxrewrite.engine.imported import imported_pass, may_apply_imported
    from jaxrewrite.engine.tracetime import PASS, TRACE, may_trace

    passes: list[TreePass] = []
    if options.wants("JR006") and may_trace(text):
        passes.append(PASS)
    if options.wants("JR013") and may_apply_imported(text):
        passes.append(imported_pass(import_reader(filename)))
    if not passes:
        return []
    found = analyze(text, filename, require_pragma=False, filters=TRACE if PASS in passes else FAST, passes=passes)
    return [d for d in found.diagnostics if d.code in ("JR006", "JR013")]


def check_text(text: str, filename: str, options: Options = Options()) -> list[Diagnostic]:
    """The findings for one module's text, after ``--select``/``--ignore`` and ``# noqa``."""
    try:
        found = []
        if "jaxrewrite" in text:
            found = lint_analysis(text, filename, options.wants("JR006")).diagnostics
        else:
            found = _outside(text, filename, options)
    except SyntaxError as err:
        err.filename = filename
        found = [Diagnostic.from_error(err, "JR100")]
    except TOO_DEEP as exc:
        found = [Diagnostic.from_error(too_deep(exc, text, filename), "JR100")]
    lines = text.splitlines()
    return [d for d in found if options.wants(d.code, filename) and not _suppressed(d, lines)]


def import_reader(filename: str) -> Callable[[str, int], str | None]:
    """Reads the source of a module a file imports from, without importing anything: relative
    imports from the file's folder, absolute ones along the search path (``show``'s finder); None
    when there is no such source (the ledger then reports the name as not followed)."""
    from jaxrewrite.commands.targets import TargetError, find_spec, source_file

    folder = os.path.dirname(os.path.abspath(filename))
    # Where the file's top-level package lives: ``from pkg.types import X`` in pkg/sub/mod.py
    # names a sibling, found there whether or not that folder is on the search path.
    root = folder
    while os.path.isfile(os.path.join(root, "__init__.py")) and os.path.dirname(root) != root:
        root = os.path.dirname(root)

    def read(module: str, level: int) -> str | None:
        try:
            if level:
                base = folder
                for _ in range(level - 1):
                    base = os.path.dirname(base)
                stem = os.path.join(base, *module.split(".")) if module else base
                candidates = [stem + ".py", os.path.join(stem, "__init__.py")]
                path = next((c for c in candidates if os.path.isfile(c)), None)
            elif os.path.isfile(filename):
                path = source_file(find_spec(module, [folder, root, *sys.path[1:]], sys.meta_path), module)
            else:
                path = None
            if path is None:
                return None
            with open(path, "rb") as file:
                return importlib.util.decode_source(file.read())
        except (TargetError, OSError, UnicodeDecodeError, SyntaxError, ValueError, ImportError):
            return None

    return read


def _suppressed(finding: Diagnostic, lines: list[str]) -> bool:
    line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
    match = _NOQA.search(line)
    if match is None:
        return False
    codes = match.group("codes")
    return codes is None or finding.code.upper() in {c.upper() for c in re.split(r"[,\s]+", codes) if c}


def may_find(data: bytes) -> bool:
    """Cheap pre-filter on a file's bytes: False means ``check`` finds nothing there (no
    "jaxrewrite", no tracing transform and no transform of the table named anywhere)."""
    return might_opt_in(data) or may_trace_bytes(data) or may_apply_imported_bytes(data)


def check_path(path: str, options: Options, data: bytes | None = None, fix: bool = False) -> list[Diagnostic]:
    """The findings of one file (``data``: its bytes, already read from standard input);
    OSError/UnicodeDecodeError when it cannot be read as Python source.

    ``fix``: first make the JR006 parameters of a module that uses jaxrewrite Static, in place."""
    if data is None:
        with open(path, "rb") as file:
            data = file.read()
    if not may_find(data):
        return []
    if fix and path != "-" and might_opt_in(data) and options.wants("JR006"):
        data = _fixed(path, data)
    return check_text(importlib.util.decode_source(data), path, options)


def _fixed(path: str, data: bytes) -> bytes:
    """``--fix``: the file's JR006 parameters made Static (jaxrewrite.migrate.fix), written atomically."""
    from jaxrewrite.commands.files import decode, write_atomically
    from jaxrewrite.migrate.fix import fix_source

    text, encoding = decode(data)
    try:
        result = fix_source(text, path)
    except (SyntaxError, *TOO_DEEP):
        return data  # reported as JR100 by the check itself
    for why in result.refused:
        print(f"{path}: not fixed: {why}", file=sys.stderr)
    if not result.changed:
        return data
    new = result.text.encode(encoding)
    write_atomically(path, new)
    print(f"{path}: fixed: {', '.join(f'{p} of {f}' for f, p in result.fixed)} made Static", file=sys.stderr)
    return new


def render(findings: list[Diagnostic], form: str, coloured: bool = False) -> str:
    if form == "json":
        return json.dumps([d.row() for d in findings], indent=2) + "\n"
    paint = colour.paint if coloured else None
    return "".join(d.format(form, paint) + "\n" for d in findings)


def summary(findings: list[Diagnostic], coloured: bool = False) -> str:
    """ruff's last line of the text form, on stdout after the findings."""
    if not findings:
        return colour.paint("All checks passed!", "green", coloured) + "\n"
    files = len({d.filename for d in findings})
    many = "s" if len(findings) != 1 else ""
    return f"Found {len(findings)} finding{many} in {files} file{'s' if files != 1 else ''}.\n"


def parser(prog: str) -> argparse.ArgumentParser:
    codes = ", ".join(sorted(CODES))
    ap = argparse.ArgumentParser(
        prog=f"{prog} check",
        description="Report Static/NoDiff annotations that would do nothing or be refused, without running anything.",
        epilog=f"{EXIT_STATUS}\ncodes: {codes} (see the guide, 'Catching mistakes')",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a .py file, a folder to search for .py files, or - for standard input (default: .)",
    )
    ap.add_argument("--format", choices=FORMATS, default="text", help="text (default), json or github")
    ap.add_argument("--select", default=None, help="comma-separated codes or code prefixes to report (default: all)")
    ap.add_argument("--ignore", default="", help="comma-separated codes or code prefixes not to report")
    ap.add_argument(
        "--fix", action="store_true", help="make the JR006 parameters Static in modules that use jaxrewrite (in place)"
    )
    ap.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="PATTERN",
        help="comma-separated glob patterns of files and folders to skip in the walk, as ruff reads "
        "them (added to the configuration's exclude; a path named here is always checked)",
    )
    ap.add_argument("--stdin-filename", metavar="NAME", help="the file name to report for standard input (-)")
    ap.add_argument("--config", metavar="PYPROJECT", help="read [tool.jaxrewrite] from this file instead")
    ap.add_argument("-q", "--quiet", action="store_true", help="no summary line after the findings")
    return ap


def _codes(value: str) -> tuple[str, ...]:
    return settings.codes([value])


def run(paths: Sequence[str], form: str, options: Options, prog: str, ns: argparse.Namespace | None = None) -> int:
    status = 0
    findings: list[Diagnostic] = []
    stdin_name = getattr(ns, "stdin_filename", None)
    exclude = [(pattern, options.config.root) for pattern in options.config.exclude]
    exclude += [(pattern, ".") for given in getattr(ns, "exclude", []) for pattern in settings.words(given)]
    for path in python_files(paths, exclude):
        try:
            if path == "-":
                findings.extend(check_path(stdin_name or "-", options, sys.stdin.buffer.read()))
            else:
                fix = getattr(ns, "fix", False)
                findings.extend(check_path(os.path.normpath(path), options, fix=fix))  # ruff prints a.py, not ./a.py
        except FileNotFoundError:
            print(f"{prog} check: {path}: no such file or folder", file=sys.stderr)
            status = 2
        except (OSError, UnicodeDecodeError, SyntaxError) as exc:  # SyntaxError: a bad coding cookie
            print(f"{prog} check: {path}: cannot read it as Python source: {exc}", file=sys.stderr)
            status = 2
    coloured = colour.wanted(sys.stdout)
    sys.stdout.write(render(findings, form, coloured))
    if form == "text" and not getattr(ns, "quiet", False) and (findings or not status):
        sys.stdout.write(summary(findings, coloured))
    if status:
        return status
    return 1 if findings else 0


def main(argv: list[str], prog: str) -> int:
    try:
        ns = parser(prog).parse_args(argv)
    except SystemExit as exc:  # argparse printed its help or its error
        return exc.code if isinstance(exc.code, int) else 2
    try:
        config = settings.discover(explicit=ns.config)
    except settings.ConfigError as exc:
        print(f"{prog} check: {exc}", file=sys.stderr)
        return 2
    per_file = tuple(code for _, codes in config.per_file_ignores for code in codes)
    unknown = settings.unknown_codes([*config.select, *config.ignore, *per_file])
    if unknown:
        where = f"{config.path}: [tool.jaxrewrite]"
        print(f"{prog} check: {where}: unknown code or prefix: {', '.join(unknown)}", file=sys.stderr)
        return 2
    select = config.select if ns.select is None else _codes(ns.select)
    ignore = (*config.ignore, *_codes(ns.ignore))
    unknown = settings.unknown_codes([*select, *ignore])
    if unknown:
        print(f"{prog} check: unknown code or prefix: {', '.join(unknown)}", file=sys.stderr)
        return 2
    paths = ns.paths or ["."]
    if "-" in paths and len(paths) > 1:
        print(f"{prog} check: - (standard input) cannot be combined with other paths", file=sys.stderr)
        return 2
    return run(paths, ns.format, Options(select, ignore, config), prog, ns)
