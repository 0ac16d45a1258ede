"""The header of a migrated file, and its imports as linters want them (isort's default profile,
as ruff applies it): the pragma, the marker import where isort puts it (jaxrewrite is third party)
under a name that clashes with nothing, and the ``functools``/``partial`` imports the migration
made unused taken out.
"""

from __future__ import annotations

import ast
import itertools
import re
import sys

from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.read.handwritten import Reason
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.table import Mark
from jaxrewrite.header import PRAGMA, header_statements

MODULE = "jaxrewrite"


def _section(stmt: ast.stmt) -> str:
    """isort's section: "stdlib" (``__future__`` too), "third" or "local" (a relative import)."""
    if isinstance(stmt, ast.ImportFrom):
        if stmt.level:
            return "local"
        name = stmt.module or ""
    else:
        assert isinstance(stmt, ast.Import)
        name = stmt.names[0].name
    return "stdlib" if name.partition(".")[0] in sys.stdlib_module_names else "third"


def _groups(block: list[ast.stmt]) -> list[list[ast.stmt]]:
    """The block split where a line that is no statement (a blank or a comment) separates two."""
    groups: list[list[ast.stmt]] = []
    for stmt in block:
        if groups and stmt.lineno == (groups[-1][-1].end_lineno or 0) + 1:
            groups[-1].append(stmt)
        else:
            groups.append([stmt])
    return groups


def marker_import_place(block: list[ast.stmt], src: Source) -> tuple[int, bool]:
    """Where the marker import goes in the first import block: (offset, whether
    it opens its own section), among the third-party imports as isort sorts them."""
    groups = _groups(block)
    third = next((g for g in groups if any(_section(s) == "third" for s in g)), None)
    if third is not None:
        for stmt in third:
            if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").lower() > MODULE:
                return src.line_starts[stmt.lineno - 1], False
        return _after(third[-1], src), False
    before = [g for g in groups if all(_section(s) == "stdlib" for s in g)]
    return _after((before[-1] if before else groups[-1])[-1], src), True


def marker_import_edits(
    body: list[ast.stmt], src: Source, names: list[tuple[str, str]], nl: str, pragma: str = ""
) -> list[splice.Edit]:
    """``pragma`` (a line, or "") where the module's header ends, and the ``from jaxrewrite``
    import of ``names`` (``(name, spelling)`` pairs) where isort puts it."""
    index = header_statements(body)
    at = statement_start(body, index, src)
    # As isort writes them: the plain names on one line, each renamed one on its own.
    plain = [name for name, spelled in sorted(names) if name == spelled]
    items = [", ".join(plain)] if plain else []
    items += [f"{name} as {spelled}" for name, spelled in sorted(names) if name != spelled]
    lines = "".join(f"from {MODULE} import {item}{nl}" for item in items)
    block = list(
        itertools.takewhile(lambda s: isinstance(s, (ast.Import, ast.ImportFrom)), body[index:])
    )
    if not block or not lines:
        return [splice.Edit(at, at, pragma + lines)] if pragma or lines else []
    place, own_section = marker_import_place(block, src)
    if place == len(src.text) and not src.text.endswith(("\n", "\r")):
        lines = nl + lines  # the last import ends the file without a line break
    import_edit = splice.Edit(place, place, (nl if own_section else "") + lines)
    return [splice.Edit(at, at, pragma), import_edit] if pragma else [import_edit]


def statement_start(body: list[ast.stmt], index: int, src: Source) -> int:
    """Where ``body[index]`` starts, its decorators included (the text's end past the body)."""
    if index >= len(body):
        return len(src.text)
    first = body[index]
    decorators = getattr(first, "decorator_list", [])
    start: int = src.line_starts[min([first.lineno, *(d.lineno for d in decorators)]) - 1]
    return start


def _after(stmt: ast.stmt, src: Source) -> int:
    end = stmt.end_lineno or stmt.lineno
    return src.line_starts[end] if end < len(src.line_starts) else len(src.text)


def header_edits(
    analysis: Analysis, tree: ast.Module, needed: set[Mark], planned: set[int]
) -> tuple[list[splice.Edit], dict[Mark, str]]:
    """The pragma and marker import edits, and each needed marker's spelling."""
    src, body = analysis.source, tree.body
    at = src.text.find("\n")  # the first line ending
    if at > 0 and src.text[at - 1] == "\r":
        nl = "\r\n"
    else:
        nl = "\r" if at < 0 and "\r" in src.text else "\n"
    index = header_statements(body)
    if index >= len(body):
        raise Reason.MODULE.refused("empty")
    if index > 0 and _after(body[index - 1], src) > statement_start(body, index, src):
        raise Reason.MODULE.refused("shared")
    enabled = analysis.header.enabled
    if not enabled:
        # The pragma is module-wide: markers already written must not come alive with it.
        for use in analysis.uses:
            if use.needs_edit and id(use) not in planned:
                name = getattr(use.target, "name", "?")
                raise Reason.MODULE.refused(name=name, line=use.target.lineno, pragma=PRAGMA)
    # Each marker's name: imported already, else plain when unused, else ``JrStatic``.
    spelling: dict[Mark, str] = {}
    for stmt in body:
        if (
            isinstance(stmt, ast.ImportFrom)
            and stmt.level == 0
            and stmt.module in ("jaxrewrite", "jaxrewrite.markers")
        ):
            for alias in stmt.names:
                for mark in Mark:
                    if alias.name == mark.value:
                        spelling.setdefault(mark, alias.asname or alias.name)
    missing = {mark for mark in needed if mark not in spelling}
    for mark in missing:
        candidate, n = mark.value, 1
        while re.search(rf"\b{candidate}\b", src.text) and mentions(
            tree, candidate, everywhere=True
        ):
            candidate = f"Jr{mark.value}" + (str(n) if n > 1 else "")
            n += 1
        spelling[mark] = candidate
    names = [(mark.value, spelling[mark]) for mark in missing]
    pragma = "" if enabled else PRAGMA + nl
    return marker_import_edits(body, src, names, nl, pragma), spelling


# -- imports the migration made unused -----------------------------------------------------------


def _bound(stmt: ast.stmt) -> list[tuple[ast.alias, str]]:
    """The aliases of ``import functools`` and ``from functools import partial``."""
    if isinstance(stmt, ast.Import):
        return [(a, a.asname or a.name) for a in stmt.names if a.name == "functools"]
    if isinstance(stmt, ast.ImportFrom) and stmt.module == "functools" and stmt.level == 0:
        return [(a, a.asname or a.name) for a in stmt.names if a.name == "partial"]
    return []


def mentions(tree: ast.Module, name: str, everywhere: bool = False) -> bool:
    """Does the code name ``name`` outside imports (a string too, for ``__all__``)?
    ``everywhere``: anywhere a new name would clash."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found = node.id == name
        elif isinstance(node, ast.arg):
            found = node.arg == name
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found = node.name == name
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found = name in node.names
        elif isinstance(node, ast.Constant):
            found = node.value == name or (
                everywhere
                and isinstance(node.value, str)
                and name in node.value
                and _annotation_like(node.value, name)
            )
        elif not everywhere:
            continue
        elif isinstance(node, ast.alias):
            found = (node.asname or node.name.partition(".")[0]) == name or node.name == name
        elif isinstance(node, ast.Attribute):
            found = node.attr == name
        else:
            found = isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name == name
        if found:
            return True
    return False


def _annotation_like(text: str, name: str) -> bool:
    """A string that parses as an expression naming ``name`` (a string annotation), not prose."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(tree))


def unused_import_edits(tree: ast.Module, src: Source, migrated: str) -> list[splice.Edit]:
    """Edits removing ``functools``/``partial`` imports the migration left unused."""
    candidates = [(stmt, bound) for stmt in tree.body if (bound := _bound(stmt))]
    if not candidates:
        return []  # nothing to take out: the migrated text need not be parsed
    try:
        after = ast.parse(migrated)
    except SyntaxError:
        return []  # the round trip reports it
    edits: list[splice.Edit] = []
    for stmt, bound in candidates:
        dead = [a for a, name in bound if mentions(tree, name) and not mentions(after, name)]
        assert isinstance(stmt, (ast.Import, ast.ImportFrom))
        edit = _drop(stmt, dead, src) if dead else None
        if edit is not None:
            edits.append(edit)
    return edits


def _drop(
    stmt: ast.Import | ast.ImportFrom, dead: list[ast.alias], src: Source
) -> splice.Edit | None:
    """The statement's lines when every name goes, one ``name, `` on a one-line statement,
    else None."""
    lines = src.lines
    first, last = stmt.lineno, stmt.end_lineno or stmt.lineno
    start, end = src.line_starts[first - 1], _after(stmt, src)
    text = src.text
    if len(dead) == len(stmt.names):
        alone = not text[start : src.offset(first, stmt.col_offset)].strip()
        rest = text[src.offset(last, stmt.end_col_offset or 0) : end]
        if not alone or rest.strip() or splice.comments(text[start:end]):
            return None
        above = lines[first - 2] if first >= 2 else ""
        below = lines[last] if last < len(lines) else None
        if below is not None and not below.strip() and not above.strip():
            end = src.line_starts[last + 1] if last + 1 < len(src.line_starts) else len(text)
        return splice.Edit(start, end, "")
    if first != last or len(dead) != 1:
        return None
    alias = dead[0]
    index = stmt.names.index(alias)
    a_start = src.offset(first, alias.col_offset)
    a_end = src.offset(first, alias.end_col_offset or alias.col_offset)
    line = text[start:end]
    if index + 1 < len(stmt.names):  # "partial, " up to the next name
        following = src.offset(first, stmt.names[index + 1].col_offset)
        if text[a_end:following].strip() != ",":
            return None
        return splice.Edit(a_start, following, "")
    previous = src.offset(first, stmt.names[index - 1].end_col_offset or 0)
    if text[previous:a_start].strip() != "," or "#" in line:
        return None
    return splice.Edit(previous, a_end, "")
