"""``jaxrewrite check [PATH...]``: every finding in files and folders, before anything runs, with
ruff's and flake8's conventions (``path:line:col: CODE message``, ``# noqa``, ``--select``,
``[tool.jaxrewrite]``); ``--fix`` fixes what it can, each fix proved by checking again.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, replace
from typing import TextIO

from jaxrewrite import config as settings
from jaxrewrite.commands.checkcache import FOLDER, Cache, Read
from jaxrewrite.commands.files import (
    SourceError,
    cannot_open,
    coloured,
    decode,
    paint,
    python_files,
    unified_diff,
    universal,
    write_atomically,
    write_source,
)
from jaxrewrite.commands.targets import import_reader, locate_import
from jaxrewrite.config import Config
from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.findings.checks import (
    imported_def,
    missing_pragma,
    traced_argument,
    unbound_marker,
)
from jaxrewrite.engine.findings.checks.imported_def import may_apply_imported_bytes
from jaxrewrite.engine.findings.checks.registry import CODES, find
from jaxrewrite.engine.findings.tracetime import may_trace_bytes
from jaxrewrite.engine.read.filters import FAST
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic, suppressed
from jaxrewrite.errors import TOO_DEEP, RewriteError, too_deep
from jaxrewrite.header import PRAGMA, might_opt_in, scan_header
from jaxrewrite.migrate.imports import marker_import_edits

FORMATS = ("text", "json", "github")


EXIT_STATUS = """\
exit status:
  0    no findings
  1    findings (after --select, --ignore, per-file-ignores and # noqa)
  2    usage errors, a bad configuration, or input that cannot be read as Python source (a
       binary file, bytes not in its encoding); a named file that does not parse is JR100
  141  the reader of the output went away first (`| head`): the rest is not printed

suppressing one finding: a `# noqa` comment on the reported line silences every code there,
`# noqa: JR002` (or `# noqa: JR002,JR003`) only those codes, as flake8 and ruff read them.

configuration: [tool.jaxrewrite] in the nearest pyproject.toml that has one (from the current
folder upward), or the file --config names: select, ignore, exclude, per-file-ignores, packages,
cache-dir.

cache: findings are kept in .jaxrewrite_cache (or cache-dir) beside the configuration, read
back only for the same bytes, version, options and followed imports; --no-cache skips it.
"""


EVERY_CODE = Config()


def _outside(
    text: str, filename: str, options: Config, reads: list[Read] | None = None, named: bool = False
) -> list[Diagnostic]:
    """A module that never names jaxrewrite: JR006 and JR013 from one parse, JR015 apart."""
    from jaxrewrite.engine.build import TreePass, build_analysis
    from jaxrewrite.engine.findings.checks.unbound_marker import unbound_findings, without_shadowed
    from jaxrewrite.engine.findings.tracetime import PASS, TRACE, may_trace

    passes: list[TreePass] = []
    if options.wants(traced_argument.RULE.code) and may_trace(text):
        passes.append(PASS)
    if options.wants(imported_def.RULE.code) and imported_def.may_apply_imported(text):
        passes.append(imported_def.imported_pass(import_reader(filename, reads)))
    unbound = unbound_findings(text, filename) if options.wants(unbound_marker.RULE.code) else []
    if not passes:
        if named:
            compile(text, filename, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        return unbound
    found = build_analysis(
        text,
        filename,
        require_pragma=False,
        filters=TRACE if PASS in passes else FAST,
        passes=passes,
    )
    kept = [
        d
        for d in found.diagnostics
        if d.code in (traced_argument.RULE.code, imported_def.RULE.code)
    ]
    return unbound + (without_shadowed(kept, ast.parse(text, filename)) if unbound else kept)


def check_text(
    text: str,
    filename: str,
    options: Config = EVERY_CODE,
    reads: list[Read] | None = None,
    parse_only: bool = False,
    named: bool = False,
) -> list[Diagnostic]:
    """One module's findings after the options and ``# noqa`` (``reads``: for the cache)."""
    try:
        found = []
        if parse_only:
            compile(text, filename, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        elif "jaxrewrite" in text:
            from jaxrewrite.engine.findings import lint_analysis

            found = lint_analysis(
                text,
                filename,
                options.wants(traced_argument.RULE.code),
                import_reader(filename, reads),
            ).diagnostics
        else:
            found = _outside(text, filename, options, reads, named)
    except SyntaxError as err:
        err.filename = filename
        found = [Diagnostic.from_error(err, rules.SYNTAX.code)]
    except TOO_DEEP as exc:
        found = [Diagnostic.from_error(too_deep(exc, text, filename), rules.SYNTAX.code)]
    lines = text.splitlines()
    return [d for d in found if options.wants(d.code, filename) and not suppressed(d, lines)]


def may_find(data: bytes) -> bool:
    """False when ``check`` can find nothing in these bytes (a cheap needle)."""
    # JR015: a marker written, perhaps never imported (``n: Static[int]``, ``self: Static``).
    markers = b"Static[" in data or b": Static" in data or b"NoDiff[" in data or b": NoDiff" in data
    return might_opt_in(data) or may_trace_bytes(data) or may_apply_imported_bytes(data) or markers


def check_path(
    path: str,
    options: Config,
    data: bytes | None = None,
    fix: bool = False,
    named: bool = False,
    cache: Cache | None = None,
) -> list[Diagnostic]:
    """One file's findings (``fix``: fixed in place first); OSError/SourceError."""
    if data is None:
        with open(path, "rb") as file:
            data = file.read()
    text = universal(decode(data, path)[0])
    if not may_find(data):
        return check_text(text, path, options, parse_only=True) if named else []
    if fix and path != "-":
        data = fix_file(path, data, options)[0]
        text = universal(decode(data, path)[0])
    if cache is None or path == "-":
        return check_text(text, path, options, named=named)
    found = cache.get(path, data, locate_import)
    if found is None:
        reads: list[Read] = []
        found = check_text(text, path, options, reads, named=named)
        cache.put(path, data, found, reads)
    return found


def render(findings: list[Diagnostic], form: str, coloured: bool = False) -> str:
    if form == "json":
        return json.dumps([d.row() for d in findings], indent=2) + "\n"
    painter = paint if coloured else None
    return "".join(d.format(form, painter) + "\n" for d in findings)


def summary(findings: list[Diagnostic], coloured: bool = False) -> str:
    """ruff's last line of the text form."""
    if not findings:
        return paint("All checks passed!", "green", coloured) + "\n"
    files = len({d.filename for d in findings})
    many = "s" if len(findings) != 1 else ""
    return f"Found {len(findings)} finding{many} in {files} file{'s' if files != 1 else ''}.\n"


def parser(prog: str) -> argparse.ArgumentParser:
    codes = ", ".join(sorted(CODES))
    ap = argparse.ArgumentParser(
        prog=f"{prog} check",
        description="Report Static/NoDiff annotations that would do nothing or be refused, "
        "without running anything.",
        epilog=f"{EXIT_STATUS}\ncodes: {codes} (see the guide, 'Catching mistakes')",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a .py file, a folder to search for .py files, or - for standard input (default: .)",
    )
    ap.add_argument(
        "--format", choices=FORMATS, default="text", help="text (default), json or github"
    )
    ap.add_argument(
        "--select",
        default=None,
        help="comma-separated codes or code prefixes to report (default: all)",
    )
    ap.add_argument(
        "--ignore", default="", help="comma-separated codes or code prefixes not to report"
    )
    ap.add_argument(
        "--fix",
        action="store_true",
        help="fix in place what can be, each fix checked again before it is written: add the "
        "missing pragma (JR001) or marker import (JR015), make the JR006 parameters Static "
        "(in a plain-JAX module: pass the transform's static keywords); stderr says what was "
        "fixed and why the rest was not",
    )
    ap.add_argument(
        "--diff",
        action="store_true",
        help="with --fix (implied): print the fixes as a unified diff and write nothing; exit 1 "
        "if there is one",
    )
    ap.add_argument(
        "--no-cache",
        action="store_true",
        help=f"neither read nor write the cache of findings ({FOLDER} in the configuration's "
        "folder, or the configuration's cache-dir)",
    )
    ap.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="PATTERN",
        help="comma-separated glob patterns of files and folders to skip in the walk, as ruff "
        "reads them (added to the configuration's exclude; a path named here is always "
        "checked)",
    )
    ap.add_argument(
        "--stdin-filename", metavar="NAME", help="the file name to report for standard input (-)"
    )
    ap.add_argument(
        "--config", metavar="PYPROJECT", help="read [tool.jaxrewrite] from this file instead"
    )
    ap.add_argument("-q", "--quiet", action="store_true", help="no summary line after the findings")
    ap.add_argument(
        "--explain",
        metavar="CODE",
        help="print the code's summary, fix and guide section (ruff rule)",
    )
    return ap


#: From this many files to analyze, a process per core (fork start: no re-import) beats one
#: process: measured crossover, benchmarks/bench_check.py's "pool" rows.
POOL_FROM = 48


@dataclass(frozen=True)
class Job:
    """One file to check, as a worker process receives it."""

    path: str
    options: Config
    named: bool = False
    fix: bool = False
    cache: Cache | None = None
    #: Standard input's bytes, already read.
    data: bytes | None = None


def examine(job: Job) -> tuple[list[Diagnostic], str | None]:
    """The findings of one file, or why it cannot be read."""
    try:
        return check_path(job.path, job.options, job.data, job.fix, job.named, job.cache), None
    except (OSError, SourceError) as exc:
        return [], cannot_open(job.path, exc)


def workers(files: int) -> int:
    """One process below ``POOL_FROM`` files, else one per core the load leaves idle
    (on a busy machine a second process gets no core and only adds its start)."""
    if files < POOL_FROM:
        return 1
    cores = (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    )
    idle = cores - os.getloadavg()[0] if hasattr(os, "getloadavg") else cores
    return max(1, min(cores, int(idle + 0.5), files))


def examine_all(
    jobs: list[Job], processes: int | None = None
) -> list[tuple[list[Diagnostic], str | None]]:
    """Every job's outcome, in order; a pool only for what the needle and the cache
    leave (a warm run over an unchanged tree starts none)."""
    if any(job.fix for job in jobs) or (processes is None and len(jobs) < POOL_FROM):
        return [examine(job) for job in jobs]
    outcomes: list[tuple[list[Diagnostic], str | None] | None] = (
        [None] * len(jobs) if processes is not None else [_settled(job) for job in jobs]
    )
    left = [k for k, outcome in enumerate(outcomes) if outcome is None]
    processes = workers(len(left)) if processes is None else processes
    if processes < 2 or not left:
        found = [examine(jobs[k]) for k in left]
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context(
            "fork" if "fork" in multiprocessing.get_all_start_methods() else None
        )
        # Small chunks: files differ a hundredfold in cost, and the order is the walk's.
        chunks = max(1, min(8, len(left) // (4 * processes)))
        with ProcessPoolExecutor(processes, mp_context=context) as pool:
            found = list(pool.map(examine, [jobs[k] for k in left], chunksize=chunks))
    for k, outcome in zip(left, found):
        outcomes[k] = outcome
    return outcomes  # type: ignore[return-value]


def _settled(job: Job) -> tuple[list[Diagnostic], str | None] | None:
    """A job's outcome without the engine (needle or cache), or None."""
    if job.data is not None or job.path == "-":
        return None
    try:
        with open(job.path, "rb") as file:
            data = file.read()
    except OSError:
        return None
    if not may_find(data):
        return None if job.named else ([], None)
    found = None if job.cache is None else job.cache.get(job.path, data, locate_import)
    return None if found is None else (found, None)


def _preview(files: list[str], options: Config, prog: str) -> int:
    """``--fix --diff``: the fixes as a unified diff, no file written; exit 1 when there is one."""
    status = 0
    for path in files:
        path = os.path.normpath(path)
        try:
            with open(path, "rb") as file:
                data = file.read()
            if fix_file(path, data, options, diff=sys.stdout)[1]:
                status = max(status, 1)
        except (OSError, SourceError) as exc:
            print(f"{prog} check: {cannot_open(path, exc)}", file=sys.stderr)
            status = 2
    return status


def main(argv: list[str], prog: str) -> int:
    ns = parser(prog).parse_args(argv)
    if ns.explain is not None:
        rule = find(ns.explain)
        if rule is None:
            return _usage(prog, f"unknown code: {ns.explain}")
        print(rule.explain(), end="")
        return 0
    config = settings.discover_for(f"{prog} check", ns.config)
    if config is None:
        return 2
    per_file = tuple(code for _, codes in config.per_file_ignores for code in codes)
    unknown = settings.unknown_codes([*config.select, *config.ignore, *per_file])
    if unknown:
        where = f"{config.path}: [tool.jaxrewrite]"
        return _usage(prog, f"{where}: unknown code or prefix: {', '.join(unknown)}")
    select = config.select if ns.select is None else settings.codes([ns.select])
    ignore = (*config.ignore, *settings.codes([ns.ignore]))
    unknown = settings.unknown_codes([*select, *ignore])
    if unknown:
        return _usage(prog, f"unknown code or prefix: {', '.join(unknown)}")
    paths = ns.paths or ["."]
    if "-" in paths and len(paths) > 1:
        return _usage(prog, "- (standard input) cannot be combined with other paths")
    if "-" in paths and (ns.fix or ns.diff):
        return _usage(prog, "--fix and --diff take files, not - (standard input)")
    options = replace(config, select=select, ignore=ignore)
    files = list(python_files(paths, settings.exclusions(options, ns.exclude)))
    if ns.diff:
        return _preview(files, options, prog)
    if not files:
        print("warning: No Python files found under the given path(s)", file=sys.stderr)
    if files == ["-"]:
        stdin = sys.stdin.buffer.read()
        outcomes = [examine(Job(ns.stdin_filename or "-", options, named=True, data=stdin))]
    else:
        # ruff's cache beside the configuration (or in its cache-dir), as ruff places its own.
        folder = os.path.join(options.root, options.cache_dir or FOLDER)
        cache = None if ns.no_cache else Cache(folder, options)
        # ruff prints a.py, not ./a.py
        jobs = [Job(os.path.normpath(p), options, p in paths, ns.fix, cache) for p in files]
        outcomes = examine_all(jobs)
    status = 0
    findings: list[Diagnostic] = []
    for found, error in outcomes:
        findings.extend(found)
        if error is not None:
            print(f"{prog} check: {error}", file=sys.stderr)
            status = 2
    colour = coloured(sys.stdout)
    sys.stdout.write(render(findings, ns.format, colour))
    if ns.format == "text" and not ns.quiet and (findings or not status):
        sys.stdout.write(summary(findings, colour))
    return status or (1 if findings else 0)


def _usage(prog: str, message: str) -> int:
    print(f"{prog} check: {message}", file=sys.stderr)
    return 2


# -- --fix: what check knows how to fix (JR015, JR001, JR006), each fix proved by checking again


def fixed_text(
    path: str,
    text: str,
    options: Config,
    notes: list[str],
    verb: str = "Fixed",
) -> str:
    """The text with what ``--fix`` fixes fixed, where proved; a line per fix and refusal
    in ``notes``."""
    before = check_text(text, path, options)
    said: list[str] = []
    meant: set[str] = set()
    new = text
    unbound, pragma = unbound_marker.RULE.code, missing_pragma.RULE.code
    if options.wants(unbound, path) and any(d.code == unbound for d in before):
        new = _with_imports(new, path, said)
        meant.add(unbound)
    if options.wants(pragma, path) and any(
        d.code == pragma for d in check_text(new, path, options)
    ):
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
        if result.text != new:
            meant.add(traced)
        new = result.text
    if new == text:
        return text
    why = _disproved(path, text, new, options, before, meant)
    if why is not None:
        notes.append(f"{path}: not fixed: {why}; nothing written")
        return text
    notes.extend(f"{path}: {verb} {line}" for line in said)
    return new


def _disproved(
    path: str,
    text: str,
    new: str,
    options: Config,
    before: list[Diagnostic],
    meant: set[str],
) -> str | None:
    """Why the fixed text is no fix (a finding left or added, or it would not import), or None."""
    try:
        compile(new, path, "exec", dont_inherit=True)
        if scan_header(new).enabled:
            from jaxrewrite.engine.rewrite import rewrite_source

            compile(rewrite_source(new, path), path, "exec", dont_inherit=True)
    except (SyntaxError, RewriteError) as err:
        return f"the fixed module would fail to import ({type(err).__name__}: {err})"
    after = check_text(new, path, options)
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
    names = sorted({node.id for node, _, _ in unbound_marker.unbound_markers(tree)})
    nl = "\r\n" if "\r\n" in text else "\n"
    edits = marker_import_edits(tree.body, Source(text, path), [(n, n) for n in names], nl)
    said.append(f"{unbound_marker.RULE.code}: added '{edits[0].text.strip()}'")
    return splice.apply(text, edits)


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
    path: str, data: bytes, options: Config, diff: TextIO | None = None
) -> tuple[bytes, bool]:
    """Fix the file atomically (or, with ``diff``, print the diff): (bytes, changed)."""
    text, encoding = decode(data, path)
    notes: list[str] = []
    new = fixed_text(path, text, options, notes, "Would fix" if diff is not None else "Fixed")
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
