"""The rewritten module as a tree: the analysed AST with each edited expression replaced by nodes.

Why: a cold import used to parse the module (for the analysis), then compile the printed text,
which parses it again in C. Compiling the analysed tree instead skips that second parse. The text
stays the single source of truth: each edited expression (a decorator, a call site) is replaced
by the parse of its new text, placed at its own lines and columns, so the tree is node for node
what ``ast.parse`` of the printed text gives and its code is byte for byte the code of the text
(``marshal.dumps``: proven over every golden input and every corpus text that rewrites by
tests/test_treecode.py, checked at every import with ``JAXREWRITE_VERIFY_AST=1``).

Anything this does not spell as nodes sends the whole module down the text route (``tree`` is
None): field forms, edits outside a transform expression, expressions on line 1 or sharing a
line, line breaks other than ``\\n``. So does a module where the new text is large against the
module: parsing it costs more than the second parse it saves (``WORTH``).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from jaxrewrite.engine import splice
from jaxrewrite.engine.analysis import Analysis, Registration, Use, UseKind
from jaxrewrite.engine.analyze import analyze, collector_paused
from jaxrewrite.engine.header import Header
from jaxrewrite.engine.rewrite import checked_plan
from jaxrewrite.engine.scopes import ScopeTree

#: The tree route is taken when the edited expressions' new text is at most this share of the
#: printed module. Measured with benchmarks/bench_cold.py on 3.11 (CPU time, per byte): parsing
#: new decorator text costs about 2.5 times what compiling from a tree saves per byte of module,
#: so past about 0.35 the tree route is the slower one (the dense module, every def decorated,
#: is at 0.6; the realistic one at 0.12).
WORTH = 0.3


@dataclass
class Rewritten:
    """The printed text, and the same module as a tree when the edits could be spelled as nodes."""

    text: str
    tree: ast.Module | None


def rewrite_tree(source: str, filename: str, header: Header | None = None, worth: float = WORTH) -> Rewritten:
    """``rewrite_source``'s text (same warnings, same first error), and its tree where it pays
    (``worth``: the largest share of new text for which the tree is built; inf: always)."""
    trees: list[ast.Module] = []

    def keep(result: Analysis, scopes: ScopeTree, tree: ast.Module) -> None:
        trees.append(tree)

    with collector_paused():
        analysis = analyze(source, filename, header=header, passes=(keep,))
        try:
            edits = checked_plan(analysis)
            text = splice.apply(analysis.source.text, edits)
            tree = trees[0] if trees and edits and _apply(analysis, trees[0], edits, worth * len(text)) else None
            return Rewritten(text, tree)
        finally:
            del analysis, trees  # the tree lives on in the result only where it is used


Change = Use | Registration


def _apply(analysis: Analysis, tree: ast.Module, edits: list[splice.Edit], most: float) -> bool:
    """Replace each edited expression by the parse of its new text; False (the tree left as the
    analysis had it, or half edited: unusable either way) when some edit is not spelled so."""
    if analysis.fields:
        return False
    src = analysis.source
    text = src.text
    changes: list[Change] = [*analysis.uses, *analysis.registrations]
    spans = sorted(
        ((src.start(change.node), src.end(change.node), change) for change in changes if change.needs_edit),
        key=lambda span: span[0],
    )
    pending = sorted(edits, key=lambda e: (e.start, e.end))
    at = 0
    last = -1
    replacements: list[tuple[Change, str]] = []
    for start, end, change in spans:
        if start < last:
            return False  # nested or overlapping expressions
        last = end
        mine: list[splice.Edit] = []
        while at < len(pending) and pending[at].start <= end:
            edit = pending[at]
            if edit.start < start or edit.end > end:
                return False
            mine.append(splice.Edit(edit.start - start, edit.end - start, edit.text))
            at += 1
        if mine:
            replacements.append((change, splice.apply(text[start:end], mine)))
    if at != len(pending) or sum(len(new) for _, new in replacements) > most:
        return False
    placed = _placed(replacements)
    if placed is None:
        return False
    for (change, _), new in zip(replacements, placed):
        if not _replace(change, new, tree):
            return False
    return True


def _replace(change: Change, new: ast.expr, tree: ast.Module) -> bool:
    """Put ``new`` where the change's expression is. A call keeps its identity (its parent, which
    the analysis does not record, goes on pointing at it), and what follows it on its last line,
    enclosing statements included, moves by what the line grew; a bare decorator, alone on its
    lines, is swapped in its list."""
    old = change.node
    if isinstance(old, ast.Call) and isinstance(new, ast.Call):
        if change.kind is not UseKind.DECORATOR and not _shift_after(old, new, tree):
            return False
        old.func, old.args, old.keywords = new.func, new.args, new.keywords
        old.lineno, old.col_offset = new.lineno, new.col_offset
        old.end_lineno, old.end_col_offset = new.end_lineno, new.end_col_offset
        return True
    if change.kind is not UseKind.DECORATOR:
        return False
    decorators = change.target.decorator_list
    for index, decorator in enumerate(decorators):
        if decorator is old:
            decorators[index] = new
            return True
    return False


#: The fields that hold a statement's nested statements (its body), not its own expressions.
_BODIES = frozenset({"body", "orelse", "finalbody", "handlers"})


def _shift_after(old: ast.Call, new: ast.Call, tree: ast.Module) -> bool:
    """Move every position after ``old`` on its last line by what that line grew: the nodes of
    the statement that holds it (a call site's ``Assign``, ``Return``...) and the ends of the
    statements around it. False where the statement is not found or holds an f-string (whose
    inner positions Python 3.11 computes apart)."""
    line, col, end = old.end_lineno, old.col_offset, old.end_col_offset
    assert line is not None and end is not None and new.end_col_offset is not None
    delta = new.end_col_offset - end
    chain = _statements_at(tree, old.lineno, col)
    if not chain:
        return False
    own = chain[-1]
    inside = {id(node) for node in ast.walk(old)}
    nodes: list[ast.AST] = [own]
    for field, value in ast.iter_fields(own):
        if field in _BODIES and isinstance(value, list):
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, ast.AST):
                nodes.extend(ast.walk(item))
    for node in nodes:
        if isinstance(node, ast.JoinedStr):
            return False
        if id(node) in inside:
            continue
        if getattr(node, "lineno", None) == line and node.col_offset >= end:  # type: ignore[attr-defined]
            node.col_offset += delta  # type: ignore[attr-defined]
        if getattr(node, "end_lineno", None) == line and node.end_col_offset >= end:  # type: ignore[attr-defined]
            node.end_col_offset += delta  # type: ignore[attr-defined]
    for outer in chain[:-1]:
        if outer.end_lineno == line and outer.end_col_offset >= end:  # type: ignore[attr-defined]
            outer.end_col_offset += delta  # type: ignore[attr-defined]
    return True


def _statements_at(tree: ast.Module, line: int, col: int) -> list[ast.AST]:
    """The statements (and except handlers) that hold the position, outermost first; empty when
    the position is in none, or in a form this does not descend (``match``)."""
    chain: list[ast.AST] = []
    lists: list[list[ast.AST]] = [list(tree.body)]
    while lists:
        hit = None
        for statements in lists:
            for stmt in statements:
                if stmt.lineno > line:  # type: ignore[attr-defined]
                    break
                if (stmt.lineno, stmt.col_offset) <= (line, col) <= (stmt.end_lineno, stmt.end_col_offset):  # type: ignore[attr-defined]
                    hit = stmt
                    break
            if hit is not None:
                break
        if hit is None:
            break
        if isinstance(hit, ast.Match):
            return []
        chain.append(hit)
        lists = [getattr(hit, field) for field in _BODIES if isinstance(getattr(hit, field, None), list)]
    return chain


def _placed(replacements: Sequence[tuple[Change, str]]) -> list[ast.expr] | None:
    """Each new text parsed where it stands: one parse of a tuple display whose items sit at the
    old expressions' lines and columns (spaces: columns are UTF-8 byte offsets; later lines of a
    multi-line item are the printed text's own lines), so the parser gives every node the position
    it has in the printed text. None when the layout cannot be spelled so, or positions differ."""
    rows = ["("]
    lines = 1
    expected: list[tuple[int, int, int, int]] = []
    for change, new in replacements:
        if "\r" in new or "\f" in new or "\v" in new:
            return None  # a line break or form feed that the display's "\n" rows would not keep
        line, col = change.node.lineno, change.node.col_offset
        if line <= lines:
            return None  # line 1, or two on one line: not a layout this spells
        rows.extend([""] * (line - 1 - lines))
        rows.append(" " * col + new + ",")
        breaks = new.count("\n")
        lines = line + breaks
        tail = new.rpartition("\n")[2].encode()
        expected.append((line, col, lines, len(tail) + (col if not breaks else 0)))
    rows.append(")")
    try:
        display = ast.parse("\n".join(rows), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(display, ast.Tuple) or len(display.elts) != len(replacements):
        return None
    for expr, (line, col, end_line, end_col) in zip(display.elts, expected):
        if (expr.lineno, expr.col_offset, expr.end_lineno, expr.end_col_offset) != (line, col, end_line, end_col):
            return None
    return display.elts
