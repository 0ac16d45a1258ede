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
from collections.abc import Iterator
from dataclasses import asdict, replace
from functools import partial

from jaxrewrite import config as settings
from jaxrewrite.commands.files import (
    Read,
    SourceError,
    cannot_open,
    coloured,
    decode,
    digest,
    import_reader,
    paint,
    python_files,
    unified_diff,
    universal,
    write_atomically,
    write_source,
)
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
from jaxrewrite.engine.rulebook.rules import docs_base
from jaxrewrite.errors import TOO_DEEP, RewriteError, too_deep
from jaxrewrite.header import NEEDLE, PRAGMA, scan_header
from jaxrewrite.hook import cachetag
from jaxrewrite.migrate.imports import marker_import_edits
from jaxrewrite.version import __version__

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
    return NEEDLE in data or may_trace_bytes(data) or may_apply_imported_bytes(data) or markers


#: A run's cache (ruff's ``.ruff_cache``; docs/design.md, "check's cache"): its folder and what
#: every key of the run shares; strings, so the worker processes receive it.
Cache = tuple[str, str]
FOLDER = ".jaxrewrite_cache"
#: The Cache Directory Tagging Specification's signature (https://bford.info/cachedir/).
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by jaxrewrite.\n"
    "# For information about cache directory tags, see:\n"
    "#\thttps://bford.info/cachedir/\n"
)


def open_cache(folder: str, options: Config) -> Cache:
    """The cache in ``folder`` for a run with ``options``: keyed by version, engine, Python,
    options and the docs' base URL (in the messages' links)."""
    try:
        engine: str | None = cachetag.rewriter_hash()
    except OSError:  # jaxrewrite's sources unreadable: the version alone
        engine = None
    said = (__version__, engine, sys.version, options, docs_base())
    return folder, digest(repr(said).encode())


def _cached(entry: str, path: str) -> list[Diagnostic] | None:
    """The findings stored in ``entry``, while every module they read reads the same again."""
    try:
        with open(entry, encoding="utf-8") as file:
            stored = json.load(file)
        reads: list[Read] = []
        read = import_reader(path, reads)
        for module, level, _, _ in stored["reads"]:
            read(module, level)
        if [list(now) for now in reads] != stored["reads"]:
            return None
        return [Diagnostic(**row) for row in stored["findings"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(folder: str, entry: str, findings: list[Diagnostic], reads: list[Read]) -> None:
    """A cache that cannot be written is no error (the run goes on)."""
    text = json.dumps(
        {"findings": [{**asdict(d), "about": None} for d in findings], "reads": reads}
    )
    try:
        os.makedirs(os.path.dirname(entry), exist_ok=True)
        tag = os.path.join(folder, "CACHEDIR.TAG")
        if not os.path.exists(tag):
            write_atomically(tag, CACHEDIR_TAG.encode(), durable=False)
            ignore = b"# Automatically created by jaxrewrite.\n*\n"
            write_atomically(os.path.join(folder, ".gitignore"), ignore, durable=False)
        write_atomically(entry, text.encode(), durable=False)
    except OSError:
        pass


Outcome = tuple[list[Diagnostic], str | None]


def examine(
    path: str,
    named: bool,
    options: Config,
    fix: bool = False,
    cache: Cache | None = None,
    data: bytes | None = None,
    settle: bool = False,
) -> Outcome | None:
    """One file's findings (``fix``: fixed in place first), or why it cannot be read; ``settle``:
    only what the needle and the cache answer, else None (the rest is the pool's work)."""
    try:
        if data is None:
            with open(path, "rb") as file:
                data = file.read()
        # Decoded first, so that a file check cannot read is reported however many files run.
        text = universal(decode(data, path)[0])
        needed = may_find(data)
        if settle and not (needed or named):
            return [], None
        if not needed:
            return (check_text(text, path, options, parse_only=True) if named else []), None
        if fix:
            data = fix_file(path, data, options)[0]
            text = universal(decode(data, path)[0])
        entry = None  # (the cache's folder, this file's entry)
        if cache is not None:
            # The path as given too: the findings name the file as the command line did.
            key = digest(f"{cache[1]}\0{os.path.abspath(path)}\0{path}\0{digest(data)}".encode())
            entry = cache[0], os.path.join(cache[0], __version__, key[:2], key[2:])
        found = None if entry is None else _cached(entry[1], path)
        if found is None and settle:
            return None
        if found is None:
            reads: list[Read] = []
            found = check_text(text, path, options, reads, named=named)
            if entry is not None:
                _store(*entry, found, reads)
        return found, None
    except (OSError, SourceError) as exc:
        return None if settle else ([], cannot_open(path, exc))


def render(findings: list[Diagnostic], form: str, coloured: bool = False) -> str:
    if form == "json":
        return json.dumps([d.row() for d in findings], indent=2) + "\n"
    painter = paint if coloured else None
    return "".join(d.format(form, painter) + "\n" for d in findings)


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
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="text (default), json or github",
    )
    ap.add_argument(
        "--select", help="comma-separated codes or code prefixes to report (default: all)"
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
    files: list[tuple[str, bool]],
    options: Config,
    fix: bool = False,
    cache: Cache | None = None,
    processes: int | None = None,
) -> list[Outcome]:
    """Every (path, named) file's outcome, in order; a pool only for what the needle and the
    cache leave (a warm run over an unchanged tree starts none)."""
    if fix or (processes is None and len(files) < POOL_FROM):
        processes = 1
    one = partial(examine, options=options, fix=fix, cache=cache)
    settled = [None if processes else one(path, named, settle=True) for path, named in files]
    left = [file for file, outcome in zip(files, settled) if outcome is None]
    processes = processes or workers(len(left))
    found: Iterator[Outcome | None] = (one(path, named) for path, named in left)
    if processes > 1 and left:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context(
            "fork" if "fork" in multiprocessing.get_all_start_methods() else None
        )
        # Small chunks: files differ a hundredfold in cost, and the order is the walk's.
        chunks = max(1, min(8, len(left) // (4 * processes)))
        with ProcessPoolExecutor(processes, mp_context=context) as pool:
            found = iter(list(pool.map(one, *zip(*left), chunksize=chunks)))
    return [outcome or next(found) for outcome in settled]  # type: ignore[misc]  # never None


def main(argv: list[str], prog: str) -> int:
    ns = parser(prog).parse_args(argv)
    if ns.explain is not None:
        rule = find(ns.explain)
        if rule is None:
            return _usage(prog, f"unknown code: {ns.explain}")
        print(rule.explain(), end="")
        return 0
    config = settings.discover(explicit=ns.config)
    select = config.select if ns.select is None else settings.codes([ns.select])
    ignore = (*config.ignore, *settings.codes([ns.ignore]))
    per_file = [code for _, codes in config.per_file_ignores for code in codes]
    for where, given in (
        (f"{config.path}: [tool.jaxrewrite]: ", [*config.select, *config.ignore, *per_file]),
        ("", [*select, *ignore]),
    ):
        unknown = [code for code in given if not any(known.startswith(code) for known in CODES)]
        if unknown:
            return _usage(prog, f"{where}unknown code or prefix: {', '.join(unknown)}")
    paths = ns.paths or ["."]
    if "-" in paths and len(paths) > 1:
        return _usage(prog, "- (standard input) cannot be combined with other paths")
    if "-" in paths and (ns.fix or ns.diff):
        return _usage(prog, "--fix and --diff take files, not - (standard input)")
    options = replace(config, select=select, ignore=ignore)
    files = list(python_files(paths, settings.exclusions(options, ns.exclude)))
    if ns.diff:  # the fixes as a unified diff, no file written; exit 1 when there is one
        status = 0
        for path in map(os.path.normpath, files):
            try:
                with open(path, "rb") as file:
                    status = max(status, int(fix_file(path, file.read(), options, diff=True)[1]))
            except (OSError, SourceError) as exc:
                print(f"{prog} check: {cannot_open(path, exc)}", file=sys.stderr)
                status = 2
        return status
    if not files:
        print("warning: No Python files found under the given path(s)", file=sys.stderr)
    if files == ["-"]:
        stdin = sys.stdin.buffer.read()
        # (None only when settling)
        outcomes = [examine(ns.stdin_filename or "-", True, options, data=stdin) or ([], None)]
    else:
        # ruff's cache beside the configuration (or in its cache-dir), as ruff places its own.
        folder = os.path.join(options.root, options.cache_dir or FOLDER)
        cache = None if ns.no_cache else open_cache(folder, options)
        # ruff prints a.py, not ./a.py
        named = [(os.path.normpath(p), p in paths) for p in files]
        outcomes = examine_all(named, options, ns.fix, cache)
    status = 0
    findings: list[Diagnostic] = []
    for found, error in outcomes:
        findings.extend(found)
        if error is not None:
            print(f"{prog} check: {error}", file=sys.stderr)
            status = 2
    colour = coloured(sys.stdout)
    sys.stdout.write(render(findings, ns.format, colour))
    if ns.format == "text" and not ns.quiet and (findings or not status):  # ruff's last line
        n, nfiles = len(findings), len({d.filename for d in findings})
        sys.stdout.write(
            f"Found {n} finding{'s' * (n != 1)} in {nfiles} file{'s' * (nfiles != 1)}.\n"
            if findings
            else paint("All checks passed!", "green", colour) + "\n"
        )
    return status or (1 if findings else 0)


def _usage(prog: str, message: str) -> int:
    print(f"{prog} check: {message}", file=sys.stderr)
    return 2


# -- --fix: what check knows how to fix (JR015, JR001, JR006), each fix proved by checking again


def fix_file(path: str, data: bytes, options: Config, diff: bool = False) -> tuple[bytes, bool]:
    """Fix what ``--fix`` fixes, where proved, atomically (with ``diff``: print the diff instead):
    (bytes, changed); a line on stderr per fix and refusal."""
    text, encoding = decode(data, path)
    before = check_text(text, path, options)
    said: list[str] = []
    meant: set[str] = set()
    new = text
    nl = "\r\n" if "\r\n" in text else "\n"
    unbound, pragma = unbound_marker.RULE.code, missing_pragma.RULE.code
    if any(d.code == unbound for d in before):  # (check_text keeps only the codes wanted)
        # ``from jaxrewrite import ...`` for the marker names used unbound, where isort puts it.
        tree = ast.parse(new, path)
        names = sorted({node.id for node, _, _ in unbound_marker.unbound_markers(tree)})
        edits = marker_import_edits(tree.body, Source(new, path), [(n, n) for n in names], nl)
        said.append(f"{unbound}: added '{edits[0].text.strip()}'")
        new = splice.apply(new, edits)
        meant.add(unbound)
    if any(d.code == pragma for d in check_text(new, path, options)):
        # The pragma as a new first line, after a ``#!`` line and a PEP 263 coding line (where it
        # would not count, JR001 is still reported: ``_disproved`` refuses the fix).
        lines = new.splitlines(keepends=True)
        at = 0
        while (
            at < min(2, len(lines))
            and lines[at].startswith("#")
            and ((at == 0 and lines[at].startswith("#!")) or "coding" in lines[at])
        ):
            at += 1
        newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
        said.append(f"JR001: added '{PRAGMA}' at line {at + 1}")
        new = "".join([*lines[:at], PRAGMA + newline, *lines[at:]])
        meant.add(pragma)
    traced = traced_argument.RULE.code
    if options.wants(traced, path) and may_trace_bytes(new.encode("utf-8", "surrogatepass")):
        from jaxrewrite.migrate.fix import fix_source

        try:
            result = fix_source(new, path)
        except (SyntaxError, *TOO_DEEP):
            return data, False  # reported as JR100 by the check itself
        for refusal in result.refused:
            print(f"{path}: not fixed: {refusal}", file=sys.stderr)
        said.extend(f"{traced}: {line}" for line in result.said)
        if result.text != new:
            meant.add(traced)
        new = result.text
    if new == text:
        return data, False
    why = _disproved(path, new, options, before, meant)
    if why is not None:
        print(f"{path}: not fixed: {why}; nothing written", file=sys.stderr)
        return data, False
    for line in said:
        print(f"{path}: {'Would fix' if diff else 'Fixed'} {line}", file=sys.stderr)
    if diff:
        shown = unified_diff(text, new, path.replace("\\", "/"))
        write_source(sys.stdout, shown, encoding, diff=True)
        return data, True
    encoded = new.encode(encoding)
    write_atomically(path, encoded)
    return encoded, True


def _disproved(
    path: str, new: str, options: Config, before: list[Diagnostic], meant: set[str]
) -> str | None:
    """Why the fixed text is no fix (a finding left or added, or it would not import), or None."""
    try:
        compile(new, path, "exec", dont_inherit=True)
        if scan_header(new).enabled:
            from jaxrewrite.engine.rewrite import rewrite_source

            compile(rewrite_source(new, path), path, "exec", dont_inherit=True)
    except (SyntaxError, RewriteError) as err:
        return f"the fixed module would fail to import ({type(err).__name__}: {err})"
    then = Counter(d.code for d in before)
    now = Counter(d.code for d in check_text(new, path, options))
    # A JR006 fix may leave parameters it cannot fix: it must report fewer; the others, none.
    traced = traced_argument.RULE.code
    left = [
        code
        for code in (*sorted(meant - {traced}), *(meant & {traced}))
        if now[code] >= (then[code] if code == traced else 1)
    ]
    if left:
        return f"{', '.join(left)} still reported after the fix"
    added = sorted((now - then).keys())
    return f"the fix would add {', '.join(added)} findings" if added else None
