"""The rewritten module as a tree: the analysed AST with the planned edits applied as nodes.

Compiling a tree skips parsing the printed text again (about a third of the cold cost of a module
where every def is decorated). The text stays the single source of truth: the tree is exactly
what ``ast.parse`` of the printed text gives, so its code is byte for byte the code of the text
(``marshal.dumps``, proven over every golden input and every corpus file that rewrites by
tests/test_treecode.py, and checked at import with ``JAXREWRITE_VERIFY_AST=1``). Only edits that
stay inside one single-line decorator are spelled as nodes; any other edit, anywhere in the
module, sends the whole module down the text route (``tree`` is None).
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass

from jaxrewrite.engine import splice
from jaxrewrite.engine.analysis import Analysis, Use, UseKind
from jaxrewrite.engine.analyze import analyze, collector_paused
from jaxrewrite.engine.header import Header
from jaxrewrite.engine.plan import plan
from jaxrewrite.engine.scopes import ScopeTree
from jaxrewrite.errors import RewriteWarning


@dataclass
class Rewritten:
    """The printed text, and the same module as a tree when every edit could be spelled as nodes."""

    text: str
    tree: ast.Module | None


def rewrite_tree(source: str, filename: str, header: Header | None = None) -> Rewritten:
    """``rewrite_source``'s text (same warnings, same first error), and its tree where supported."""
    trees: list[ast.Module] = []

    def keep(result: Analysis, scopes: ScopeTree, tree: ast.Module) -> None:
        trees.append(tree)

    with collector_paused():
        analysis = analyze(source, filename, header=header, passes=(keep,))
        try:
            for finding in analysis.diagnostics:
                if not finding.is_error:
                    warnings.warn_explicit(finding.message, RewriteWarning, finding.filename, finding.line)
            analysis.raise_first_error()
            edits = plan(analysis)
            text = splice.apply(analysis.source.text, edits)
            tree = trees[0] if trees and edits and _apply(analysis, edits) else None
            return Rewritten(text, tree)
        finally:
            del analysis, trees  # the tree lives on in the result only where it is used


def _apply(analysis: Analysis, edits: list[splice.Edit]) -> bool:
    """Replace each edited decorator by the parse of its new text; False (tree left unusable)
    when some edit is not inside a supported decorator."""
    src = analysis.source
    text = src.text
    spans: list[tuple[int, int, Use]] = []
    for use in analysis.uses:
        if not use.needs_edit:
            continue
        node = use.node
        if use.kind is not UseKind.DECORATOR or node.lineno != node.end_lineno:
            return False
        spans.append((src.start(node), src.end(node), use))
    if analysis.registrations and any(r.needs_edit for r in analysis.registrations):
        return False
    if analysis.fields:
        return False
    spans.sort(key=lambda span: span[0])
    pending = sorted(edits, key=lambda e: (e.start, e.end))
    at = 0
    replacements: list[tuple[Use, str]] = []
    for start, end, use in spans:
        mine: list[splice.Edit] = []
        while at < len(pending) and pending[at].start <= end:
            edit = pending[at]
            if edit.start < start or edit.end > end:
                return False
            mine.append(splice.Edit(edit.start - start, edit.end - start, edit.text))
            at += 1
        if not mine:
            continue
        new = splice.apply(text[start:end], mine)
        if "\n" in new or "\r" in new or "\f" in new:
            return False
        replacements.append((use, new))
    if at != len(pending):
        return False
    placed = _placed(replacements)
    if placed is None:
        return False
    for (use, _), expr in zip(replacements, placed):
        decorators = use.target.decorator_list
        index = next((i for i, d in enumerate(decorators) if d is use.node), None)
        if index is None:
            return False
        decorators[index] = expr
    return True


def _placed(replacements: list[tuple[Use, str]]) -> list[ast.expr] | None:
    """Each new decorator text parsed where it stands: one parse of a tuple display whose items
    sit at the old decorators' lines and columns (spaces: columns are UTF-8 byte offsets), so the
    parser gives every node the position it has in the printed text. None when that fails."""
    rows = ["("]
    for use, new in replacements:
        line, col = use.node.lineno, use.node.col_offset
        if line <= len(rows):
            return None  # line 1, or two on one line: not a layout this spells
        rows.extend([""] * (line - 1 - len(rows)))
        rows.append(" " * col + new + ",")
    rows.append(")")
    try:
        display = ast.parse("\n".join(rows), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(display, ast.Tuple) or len(display.elts) != len(replacements):
        return None
    for (use, _), expr in zip(replacements, display.elts):
        old = use.node
        if (expr.lineno, expr.end_lineno, expr.col_offset) != (old.lineno, old.lineno, old.col_offset):
            return None
    return display.elts
