"""The module header of a migrated file: where the pragma goes (the engine's header rule,
``header.header_statements``), where and how the marker import is spelled, and whether enabling
the module would bring markers already written to life."""

from __future__ import annotations

import ast
import re

from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.rulebook.table import Mark
from jaxrewrite.header import PRAGMA, header_statements
from jaxrewrite.migrate.imports import first_import_block, marker_import_edit, marker_import_lines
from jaxrewrite.migrate.result import Reason

_MARKER_NAMES = {Mark.STATIC: "Static", Mark.NODIFF: "NoDiff"}


def header_edits(
    analysis: Analysis, tree: ast.Module, needed: set[Mark], planned: set[int]
) -> tuple[list[splice.Edit], dict[Mark, str]]:
    """The pragma (where the module lacks it) and the marker import, and how each marker in
    ``needed`` is spelled; ``planned``: ``id`` of the uses the migration edits."""
    src, body = analysis.source, tree.body
    at = src.text.find("\n")  # the first line ending
    if at > 0 and src.text[at - 1] == "\r":
        nl = "\r\n"
    else:
        nl = "\r" if at < 0 and "\r" in src.text else "\n"
    index = header_statements(body)
    if index >= len(body):
        raise Reason.MODULE.refused("empty")
    first = body[index]
    first_line = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))])
    if index > 0 and (body[index - 1].end_lineno or 0) >= first_line:
        raise Reason.MODULE.refused("shared")
    enabled = analysis.header.enabled
    if not enabled:
        # The pragma is module-wide: markers already written must not come alive with it.
        for use in analysis.uses:
            if use.needs_edit and id(use) not in planned:
                name = getattr(use.target, "name", "?")
                raise Reason.MODULE.refused(name=name, line=use.target.lineno, pragma=PRAGMA)
    spelling, missing = _spelling(needed, body, src.text, tree)
    at_first = src.line_starts[first_line - 1]
    lines = marker_import_lines([(_MARKER_NAMES[mark], spelling[mark]) for mark in missing])
    edits: list[splice.Edit] = []
    pragma = "" if enabled else PRAGMA + nl
    block = first_import_block(body, index)
    if not block or not lines:
        if pragma or lines:
            edits.append(
                splice.Edit(at_first, at_first, pragma + "".join(line + nl for line in lines))
            )
        return edits, spelling
    if pragma:
        edits.append(splice.Edit(at_first, at_first, pragma))
    edits.append(marker_import_edit(block, src, "".join(line + nl for line in lines), nl))
    return edits, spelling


def _spelling(
    needed: set[Mark], head: list[ast.stmt], text: str, tree: ast.Module
) -> tuple[dict[Mark, str], set[Mark]]:
    """The name each marker is spelled with: an import of it among the module's first
    statements, else the plain name when the text never uses it, else ``JrStatic``/``JrNoDiff``."""
    spelling: dict[Mark, str] = {}
    for stmt in head:
        if (
            isinstance(stmt, ast.ImportFrom)
            and stmt.level == 0
            and stmt.module in ("jaxrewrite", "jaxrewrite.markers")
        ):
            for alias in stmt.names:
                for mark, name in _MARKER_NAMES.items():
                    if alias.name == name and mark not in spelling:
                        spelling[mark] = alias.asname or alias.name
    missing = {mark for mark in needed if mark not in spelling}
    for mark in missing:
        name = _MARKER_NAMES[mark]
        candidate, n = name, 1
        while re.search(rf"\b{candidate}\b", text) and _uses_name(tree, candidate):
            candidate = f"Jr{name}" + (str(n) if n > 1 else "")
            n += 1
        spelling[mark] = candidate
    return spelling, missing


def _uses_name(tree: ast.Module, name: str) -> bool:
    """Does the code bind or read ``name`` anywhere (strings and comments do not count)?"""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found = node.id == name
        elif isinstance(node, ast.arg):
            found = node.arg == name
        elif isinstance(node, ast.alias):
            found = (node.asname or node.name.partition(".")[0]) == name or node.name == name
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found = node.name == name
        elif isinstance(node, ast.Attribute):
            found = node.attr == name
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found = name in node.names
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found = name in node.value and _annotation_like(node.value, name)
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
