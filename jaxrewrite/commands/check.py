"""``jaxrewrite check [PATH...]``: every finding in files and folders, before anything runs.

ruff's and flake8's conventions: ``path:line:col: CODE message`` (or JSON, or GitHub workflow
annotations), ``.`` when no path is given, ``-`` for standard input, ``--select``/``--ignore`` by
code prefix, ``--exclude`` globs, ``# noqa`` and ``# noqa: CODE`` on the reported line, settings
from ``[tool.jaxrewrite]`` (``jaxrewrite.config``), and ruff's summary line after the text form;
exit 0 clean, 1 findings, 2 usage errors or unreadable input.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from jaxrewrite import config as settings
from jaxrewrite.commands import colour
from jaxrewrite.commands.checkcache import FOLDER, Cache, Read
from jaxrewrite.commands.files import SourceError, cannot_open, decode, python_files, universal
from jaxrewrite.commands.targets import import_reader, locate_import
from jaxrewrite.config import Options
from jaxrewrite.engine.findings.checks import imported_def, traced_argument, unbound_marker
from jaxrewrite.engine.findings.checks.imported_def import may_apply_imported_bytes
from jaxrewrite.engine.findings.checks.registry import CODES, find
from jaxrewrite.engine.findings.tracetime import may_trace_bytes
from jaxrewrite.engine.read.filters import FAST
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic, suppressed
from jaxrewrite.errors import TOO_DEEP, too_deep
from jaxrewrite.header import might_opt_in

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


EVERY_CODE = Options()


def _outside(
    text: str, filename: str, options: Options, reads: list[Read] | None = None, named: bool = False
) -> list[Diagnostic]:
    """A module that never names jaxrewrite: JR006 and JR013 from one parse (JR015 apart); a file
    ``named`` on the command line is parsed even where neither can be found (JR100)."""
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
    options: Options = EVERY_CODE,
    reads: list[Read] | None = None,
    parse_only: bool = False,
    named: bool = False,
) -> list[Diagnostic]:
    """The findings for one module's text, after ``--select``/``--ignore`` and ``# noqa``
    (``reads``: collects the modules followed, for the cache; ``parse_only``: JR100 alone)."""
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
    """Cheap pre-filter on a file's bytes: False means ``check`` finds nothing there (no
    "jaxrewrite", no marker name, no tracing transform and no transform of the table named)."""
    # JR015: a marker written, perhaps never imported (``n: Static[int]``, ``self: Static``).
    markers = b"Static[" in data or b": Static" in data or b"NoDiff[" in data or b": NoDiff" in data
    return might_opt_in(data) or may_trace_bytes(data) or may_apply_imported_bytes(data) or markers


def read_source(path: str, data: bytes | None = None) -> tuple[bytes, str]:
    """The file's bytes (``data`` when already read) and its text as Python decodes it."""
    if data is None:
        with open(path, "rb") as file:
            data = file.read()
    return data, universal(decode(data, path)[0])


def check_path(
    path: str,
    options: Options,
    data: bytes | None = None,
    fix: bool = False,
    named: bool = False,
    cache: Cache | None = None,
) -> list[Diagnostic]:
    """The findings of one file (``data``: standard input's bytes); OSError/SourceError when it
    cannot be read as Python source. ``fix``: first fix it in place (``commands.checkfix``)."""
    data, text = read_source(path, data)
    if not may_find(data):
        return check_text(text, path, options, parse_only=True) if named else []
    if fix and path != "-":
        from jaxrewrite.commands.checkfix import fix_file

        data = fix_file(path, data, options, check_text)[0]
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
    paint = colour.paint if coloured else None
    return "".join(d.format(form, paint) + "\n" for d in findings)


def summary(findings: list[Diagnostic], coloured: bool = False) -> str:
    """ruff's last line of the text form."""
    if not findings:
        return colour.paint("All checks passed!", "green", coloured) + "\n"
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
    options: Options
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
    """How many processes for ``files`` files: one below ``POOL_FROM``, else one per core that
    the load average leaves idle (on a machine already busy, a second process gets no second
    core and only adds its start: measured, benchmarks/bench_check.py's "pool" rows)."""
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
    """Every job's outcome, in order; over ``processes`` (default: ``workers``) where more than
    one."""
    if processes is None:
        if len(jobs) < POOL_FROM or any(job.fix for job in jobs):
            return [examine(job) for job in jobs]
        # What the needle rules out or the cache holds is answered here: a warm run over an
        # unchanged tree starts no pool (a process per core costs more than reading the cache).
        outcomes = [_settled(job) for job in jobs]
        left = [k for k, outcome in enumerate(outcomes) if outcome is None]
        if left:
            for k, outcome in zip(left, examine_all([jobs[k] for k in left], workers(len(left)))):
                outcomes[k] = outcome
        return [outcome for outcome in outcomes if outcome is not None]
    if processes < 2 or any(job.fix for job in jobs):
        return [examine(job) for job in jobs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    )
    # Small chunks: files differ a hundredfold in cost, and the order is the walk's, not by size.
    chunks = max(1, min(8, len(jobs) // (4 * processes)))
    with ProcessPoolExecutor(processes, mp_context=context) as pool:
        return list(pool.map(examine, jobs, chunksize=chunks))


def _settled(job: Job) -> tuple[list[Diagnostic], str | None] | None:
    """The outcome of a job without the engine: a walked file ``may_find`` rules out, or one the
    cache holds; None for the rest (a file that cannot be read included: ``examine`` says why)."""
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


def open_cache(options: Options, ns: argparse.Namespace | None) -> Cache | None:
    """The cache in ``cache-dir``, or ``.jaxrewrite_cache`` in the configuration's folder (the cwd
    without one), as ruff places its own; None with ``--no-cache``."""
    if getattr(ns, "no_cache", False):
        return None
    folder = os.path.join(options.config.root, options.config.cache_dir or FOLDER)
    return Cache.open(folder, (options.select, options.ignore, options.config))


def run(
    paths: Sequence[str],
    form: str,
    options: Options,
    prog: str,
    ns: argparse.Namespace | None = None,
) -> int:
    status = 0
    findings: list[Diagnostic] = []
    files = list(
        python_files(paths, settings.exclusions(options.config, getattr(ns, "exclude", [])))
    )
    if getattr(ns, "diff", False):
        return _preview(files, options, prog)
    if not files:
        print("warning: No Python files found under the given path(s)", file=sys.stderr)
    if files == ["-"]:
        stdin_name = getattr(ns, "stdin_filename", None) or "-"
        outcomes = [examine(Job(stdin_name, options, named=True, data=sys.stdin.buffer.read()))]
    else:
        fix, cache, named = getattr(ns, "fix", False), open_cache(options, ns), set(paths)
        # ruff prints a.py, not ./a.py
        jobs = [Job(os.path.normpath(path), options, path in named, fix, cache) for path in files]
        outcomes = examine_all(jobs)
    for found, error in outcomes:
        findings.extend(found)
        if error is not None:
            print(f"{prog} check: {error}", file=sys.stderr)
            status = 2
    coloured = colour.wanted(sys.stdout)
    sys.stdout.write(render(findings, form, coloured))
    if form == "text" and not getattr(ns, "quiet", False) and (findings or not status):
        sys.stdout.write(summary(findings, coloured))
    if status:
        return status
    return 1 if findings else 0


def _preview(files: list[str], options: Options, prog: str) -> int:
    """``--fix --diff``: the fixes as a unified diff, no file written; exit 1 when there is one."""
    from jaxrewrite.commands.checkfix import fix_file

    status = 0
    for path in files:
        path = os.path.normpath(path)
        try:
            if fix_file(path, read_source(path)[0], options, check_text, diff=sys.stdout)[1]:
                status = max(status, 1)
        except (OSError, SourceError) as exc:
            print(f"{prog} check: {cannot_open(path, exc)}", file=sys.stderr)
            status = 2
    return status


def main(argv: list[str], prog: str) -> int:
    try:
        ns = parser(prog).parse_args(argv)
    except SystemExit as exc:  # argparse printed its help or its error
        return exc.code if isinstance(exc.code, int) else 2
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
    return run(paths, ns.format, Options(select, ignore, config), prog, ns)


def _usage(prog: str, message: str) -> int:
    print(f"{prog} check: {message}", file=sys.stderr)
    return 2
