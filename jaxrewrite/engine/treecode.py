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
    replacements: list[tuple[Use, ast.expr]] = []
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
        replacements.append((use, _placed(new, use.node)))
    if at != len(pending):
        return False
    for use, expr in replacements:
        decorators = use.target.decorator_list
        index = next((i for i, d in enumerate(decorators) if d is use.node), None)
        if index is None:
            return False
        decorators[index] = expr
    return True


def _placed(new: str, old: ast.expr) -> ast.expr:
    """``new`` parsed, its positions those of the same text at ``old``'s place on its line
    (columns are UTF-8 byte offsets, as the parser counts them)."""
    expr = ast.parse(new, mode="eval").body
    line, col = old.lineno, old.col_offset
    for node in ast.walk(expr):
        if "lineno" in node._attributes:
            node.lineno = line  # type: ignore[attr-defined]
            node.end_lineno = line  # type: ignore[attr-defined]
            node.col_offset += col  # type: ignore[attr-defined]
            node.end_col_offset += col  # type: ignore[attr-defined]
    return expr
