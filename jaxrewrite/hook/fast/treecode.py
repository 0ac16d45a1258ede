"""The rewritten module as a tree: the analysed AST with each edited expression replaced by nodes.

Why: a cold import used to parse the module (for the analysis), then compile the printed text,
which parses it again in C. Compiling the analysed tree instead skips that second parse. The text
stays the single source of truth: each edited expression (a decorator, a call site) gets the
nodes, at the columns, that the printed text has there: built from what the plan says its edits
spell (treenodes.py), or else parsed from its new text placed at its own lines and
columns. So the tree is node for node what ``ast.parse`` of the printed text gives, and its code
byte for byte the code of the text (``marshal.dumps``: proven over every golden input and every
corpus text that rewrites by tests/test_treecode.py and tests/test_corpus.py, and checked at
every import with ``JAXREWRITE_VERIFY_AST=1``).

What neither way spells sends the whole module down the text route (``tree`` is None): field
forms, edits outside a transform expression, two edited expressions on one line, a parsed one on
line 1 or with a line break other than ``\\n``. So does a module where building the tree costs
more than the second parse saves (``WORTH``: every def decorated, with two-line bodies).
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Sequence
from functools import cached_property

from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.analysis import Analysis, Registration, Use, UseKind
from jaxrewrite.engine.analyze import collector_paused, keeping_tree
from jaxrewrite.engine.findings import analyze
from jaxrewrite.header import Header
from jaxrewrite.engine.rewrite import checked_plan, notes
from jaxrewrite.errors import Notes
from jaxrewrite.hook.fast import treenodes

#: What the tree route costs, in bytes of module whose second parse it saves: each edited
#: expression (nodes built and placed, about 25 us on 3.11) and each byte of new text that must
#: be parsed (about 0.6 us), against about 0.1 us saved per byte of module. Measured with
#: benchmarks/bench_cold.py: the realistic module (one edited expression per 800 bytes) gains,
#: the dense one (one per 55 bytes, every def decorated) would lose, and keeps the text route.
PER_EXPRESSION = 250
PER_PARSED_BYTE = 6
#: The tree route is taken while its cost is at most this many times the module's size.
WORTH = 1.0


class Rewritten:
    """The printed text, and the same module as a tree when the edits could be spelled as nodes.
    The text is spliced when first read: the hook, given the tree, reads it only to check it."""

    def __init__(self, source: str, edits: list[splice.Edit], tree: ast.Module | None, said: Notes = ()) -> None:
        self.source, self.edits, self.tree = source, edits, tree
        #: The warnings issued on the way (engine/rewrite.py's ``notes``), for the hook's cache.
        self.notes = said

    @cached_property
    def text(self) -> str:
        return splice.apply(self.source, self.edits)


def rewrite_tree(
    source: str, filename: str, header: Header | None = None, worth: float = WORTH, report: bool = False
) -> Rewritten:
    """``rewrite_source``'s text (same warnings, same first error), and its tree where it pays
    (``worth``: the largest cost, against the module's size, for which the tree is built; inf:
    whenever it can be). ``report``: also the markers that do nothing (``analyze``'s)."""
    trees: list[ast.Module] = []
    with collector_paused():
        analysis = analyze(source, filename, header=header, passes=(keeping_tree(trees),), report=report)
        try:
            edits = checked_plan(analysis)
            tree = trees[0] if trees and edits and _apply(analysis, trees[0], edits, worth * len(source)) else None
            return Rewritten(source, edits, tree, notes(analysis))
        finally:
            del analysis  # the tree lives on in the result only where it is used
            trees.clear()


Change = Use | Registration


def _apply(analysis: Analysis, tree: ast.Module, edits: list[splice.Edit], most: float) -> bool:
    """Replace each edited expression by its new nodes: built from what the plan says it spells
    (treenodes.py), else parsed from its new text. False (the tree left half edited,
    unusable) when some edit is spelled neither way, or the cost is over ``most``."""
    if analysis.fields:
        return False
    src = analysis.source
    text = src.text
    changes: list[Change] = [*analysis.uses, *analysis.registrations]
    spans = sorted(
        ((src.start(change.node), src.end(change.node), change) for change in changes if change.needs_edit),
        key=lambda span: span[0],
    )
    if len(spans) * PER_EXPRESSION > most:
        return False
    pending = sorted(edits, key=lambda e: (e.start, e.end))
    at = 0
    last_line = 0
    replacements: list[tuple[Change, str]] = []
    for start, end, change in spans:
        node = change.node
        if node.lineno <= last_line:
            return False  # two on one line, or nested: what one moves, the other would not see
        last_line = node.end_lineno  # type: ignore[assignment]
        mine: list[splice.Edit] = []
        while at < len(pending) and pending[at].start <= end:
            edit = pending[at]
            if edit.start < start or edit.end > end:
                return False
            mine.append(edit)
            at += 1
        if mine and not _built(change, mine, tree):
            shifted = [splice.Edit(e.start - start, e.end - start, e.text) for e in mine]
            replacements.append((change, splice.apply(text[start:end], shifted)))
    parsed = sum(len(new) for _, new in replacements)
    if at != len(pending) or len(spans) * PER_EXPRESSION + parsed * PER_PARSED_BYTE > most:
        return False
    placed = _placed(replacements) if replacements else []
    if placed is None:
        return False
    for (change, _), new in zip(replacements, placed):
        if not _replace(change, new, tree):
            return False
    return True


def _built(change: Change, edits: list[splice.Edit], tree: ast.Module) -> bool:
    """Build the change's new nodes without a parse where the plan says what its edits spell;
    False (nothing changed) where it does not."""
    node = change.node
    if isinstance(node, ast.Call):
        line, end = node.end_lineno, node.end_col_offset
        chain = [] if change.kind is UseKind.DECORATOR else _chain(tree, node)
        if change.kind is not UseKind.DECORATOR and not chain:
            return False
        grown = treenodes.completed(node, edits)
        if grown is None:
            return False
        if chain:
            _shift_after(chain, node, line, end, grown)  # type: ignore[arg-type]
        return True
    if change.kind is not UseKind.DECORATOR:
        return False
    new = treenodes.wrapped(node, edits)
    return new is not None and _swap(change, node, new)


def _replace(change: Change, new: ast.expr, tree: ast.Module) -> bool:
    """Put ``new`` where the change's expression is. A call keeps its identity (its parent, which
    the analysis does not record, goes on pointing at it), and what follows it on its last line,
    enclosing statements included, moves by what the line grew; a bare decorator, alone on its
    lines, is swapped in its list."""
    old = change.node
    if isinstance(old, ast.Call) and isinstance(new, ast.Call):
        if change.kind is not UseKind.DECORATOR:
            chain = _chain(tree, old)
            if not chain:
                return False
            assert old.end_lineno is not None and old.end_col_offset is not None
            assert new.end_col_offset is not None
            grown = new.end_col_offset - old.end_col_offset
            _shift_after(chain, old, old.end_lineno, old.end_col_offset, grown)
        old.func, old.args, old.keywords = new.func, new.args, new.keywords
        old.lineno, old.col_offset = new.lineno, new.col_offset
        old.end_lineno, old.end_col_offset = new.end_lineno, new.end_col_offset
        return True
    return change.kind is UseKind.DECORATOR and _swap(change, old, new)


def _swap(change: Change, old: ast.expr, new: ast.expr) -> bool:
    decorators = change.target.decorator_list
    for index, decorator in enumerate(decorators):
        if decorator is old:
            decorators[index] = new
            return True
    return False


#: The fields that hold a statement's nested statements (its body), not its own expressions.
_BODIES = frozenset({"body", "orelse", "finalbody", "handlers"})


def _chain(tree: ast.Module, call: ast.Call) -> list[ast.AST]:
    """The statements around a call site, outermost first; empty where they are not found."""
    return _statements_at(tree, call.lineno, call.col_offset)


def _own_nodes(stmt: ast.AST) -> list[ast.AST]:
    """A statement and the nodes of its own expressions, not those of the statements it holds."""
    nodes: list[ast.AST] = [stmt]
    for field, value in ast.iter_fields(stmt):
        if field in _BODIES and isinstance(value, list):
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, ast.AST):
                nodes.extend(ast.walk(item))
    return nodes


def _shift_after(chain: list[ast.AST], call: ast.Call, line: int, end: int, delta: int) -> None:
    """Move every position after the call (which ended at column ``end`` of ``line``) on that line
    by ``delta``: the nodes of the statement that holds it (a call site's ``Assign``,
    ``Return``...) and the ends of the statements around it."""
    inside = {id(node) for node in ast.walk(call)}
    for node in _own_nodes(chain[-1]):
        if id(node) in inside:
            continue
        if getattr(node, "lineno", None) == line and node.col_offset >= end:  # type: ignore[attr-defined]
            node.col_offset += delta  # type: ignore[attr-defined]
        if getattr(node, "end_lineno", None) == line and node.end_col_offset >= end:  # type: ignore[attr-defined]
            node.end_col_offset += delta  # type: ignore[attr-defined]
    for outer in chain[:-1]:
        if outer.end_lineno == line and outer.end_col_offset >= end:  # type: ignore[attr-defined]
            outer.end_col_offset += delta  # type: ignore[attr-defined]


def _statements_at(tree: ast.Module, line: int, col: int) -> list[ast.AST]:
    """The statements (and except handlers) that hold the position, outermost first; empty when
    the position is in none, or in a form this does not descend (``match``)."""
    chain: list[ast.AST] = []
    lists: list[list[ast.AST]] = [tree.body]  # type: ignore[list-item]
    where = (line, col)
    while lists:
        hit = None
        for statements in lists:
            # A body's statements are in source order and never overlap: the last one starting at
            # or before the position is the only one that can hold it.
            at = bisect.bisect_right(statements, where, key=_start) - 1
            if at >= 0:
                stmt = statements[at]
                if where <= (stmt.end_lineno, stmt.end_col_offset):  # type: ignore[attr-defined]
                    hit = stmt
                    break
        if hit is None:
            break
        if isinstance(hit, ast.Match):
            return []
        chain.append(hit)
        lists = [getattr(hit, field) for field in _BODIES if isinstance(getattr(hit, field, None), list)]
    return chain


def _start(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


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
