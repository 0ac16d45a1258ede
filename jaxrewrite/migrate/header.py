"""The header of a migrated file: the pragma, and the marker import and its spelling."""

from __future__ import annotations

import ast
import re

from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.rulebook.table import Mark
from jaxrewrite.header import PRAGMA, header_statements
from jaxrewrite.migrate.imports import marker_import_edits, mentions
from jaxrewrite.migrate.result import Reason

_MARKER_NAMES = {Mark.STATIC: "Static", Mark.NODIFF: "NoDiff"}


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
    names = [(_MARKER_NAMES[mark], spelling[mark]) for mark in missing]
    pragma = "" if enabled else PRAGMA + nl
    return marker_import_edits(body, src, names, nl, pragma), spelling


def _spelling(
    needed: set[Mark], head: list[ast.stmt], text: str, tree: ast.Module
) -> tuple[dict[Mark, str], set[Mark]]:
    """Each marker's name: imported already, else plain when unused, else ``JrStatic``."""
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
        while re.search(rf"\b{candidate}\b", text) and mentions(tree, candidate, everywhere=True):
            candidate = f"Jr{name}" + (str(n) if n > 1 else "")
            n += 1
        spelling[mark] = candidate
    return spelling, missing
