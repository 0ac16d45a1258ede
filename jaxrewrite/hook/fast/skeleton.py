"""The module parsed without the function bodies the analysis leaves unwalked (the hook's cold path).

Why: ``ast.parse`` of a module costs about what compiling it costs, and most of a module is
function bodies that the analysis never walks: ``scopes.build_scopes`` defers a body with no
def, class or decorator line until a call site's text search lands in it. The hook compiles the
printed text anyway, so its analysis can read a skeleton: the same text with each such body
replaced by ``...`` on its first line and blank lines after (every other line byte for byte the
same, so every other node keeps its position), parsed in a fraction of the time.

By construction, not by audit: each elided def is an ``ElidedDef`` (``ElidedAsyncDef``, engine/read/elided.py), whose
``body``, ``end_lineno`` and ``end_col_offset`` parse the real body from the text on first read,
at its own lines and columns, so whatever reads them gets what the full parse gives. The hot path
reads ``first`` and ``last`` (the body's first and last lines) instead, and never needs to.

The text is lexed (strings and comments masked, brackets counted) to find where a body ends; where
that reading could be wrong (tabs or form feeds in indentation, ``\\r``, an unterminated string,
a PEP 701 f-string with quotes inside its fields, an unparsable skeleton) there is no skeleton
and the caller parses the whole text.
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from jaxrewrite.engine.read.elided import STRUCTURAL, elide
from jaxrewrite.engine.read.lexed import MASKED_TOKEN, Unsure, mask
from jaxrewrite.engine.read.source import lines_containing

#: Lines a skeleton cannot be read from: indentation with a tab or form feed.
_ODD_INDENT = re.compile(r"(?:^|\n) *[\t\f]")

#: Bodies shorter than this (in characters, from the def on) are kept: parsing them costs less
#: than leaving them out (bench_cold's dense module: one-line bodies).
LEAST = 160

@lru_cache(maxsize=16)
def _dedent_at(indent: int) -> re.Pattern[str]:
    """A line whose first character that is not a blank (nor inside a string) is at column
    ``indent`` or less: where a body at a deeper indentation may end."""
    return re.compile(rf"\n {{0,{indent}}}[^ \n\x01]")


class Body(NamedTuple):
    """An elided body: its first and last lines, where its last statement ends (a UTF-8 column,
    as the parser counts), and whether the def is ``async``."""

    first: int
    last: int
    end_col: int
    is_async: bool


@dataclass
class Skeleton:
    """The skeleton text, and the bodies it leaves out, by the line of their ``def``."""

    text: str
    bodies: dict[int, Body]
    #: Characters of the module left out of the skeleton.
    elided: int


def build(
    text: str, line_starts: list[int], structural: list[int] | None = None, least: int = LEAST
) -> Skeleton | None:
    """The skeleton of ``text`` (``line_starts``: where each line begins, and its end), or None
    where no body can be elided or the text cannot be read surely enough."""
    if "\r" in text or "\x00" in text or "\x01" in text or "\x02" in text or "barry_as_FLUFL" in text:
        return None
    try:
        masked = MASKED_TOKEN.sub(mask, text)
    except Unsure:
        return None
    if "'" in masked or '"' in masked:
        return None  # an unterminated string
    if ("\t" in masked or "\f" in masked) and _ODD_INDENT.search(masked):
        return None  # indentation read with tab stops
    if structural is None:
        structural = lines_containing(text, line_starts, STRUCTURAL)
    lines = len(line_starts) - 1
    bodies: dict[int, Body] = {}
    cuts: list[tuple[int, int, int]] = []  # (first line, last line, indent of the first line)
    found_defs = _defs(masked)
    found_defs.append((len(masked), 0, False))
    for k in range(len(found_defs) - 1):
        start, indent, is_async = found_defs[k]
        if found_defs[k + 1][0] - start < least:
            # A body ends before the next def, or holds it (and is walked): this one is small.
            continue
        line = bisect.bisect_right(line_starts, start)
        found = _body(masked, line_starts, line, indent, lines)
        if found is None:
            continue
        first, last = found
        at = bisect.bisect_left(structural, first)
        if at < len(structural) and structural[at] <= last:
            continue  # the analysis walks this body: it must be parsed
        bodies[line] = Body(first, last, _end_col(text, masked, line_starts, last), is_async)
        cuts.append((first, last, _indent(masked, line_starts[first - 1])))
    if not bodies:
        return None
    parts: list[str] = []
    at = 0
    elided = 0
    for first, last, indent in cuts:
        begin, end = line_starts[first - 1], line_starts[last]
        if text[end - 1 : end] == "\n":
            end -= 1  # the last line's break stays
        parts.append(text[at:begin])
        parts.append(" " * indent + "..." + "\n" * (last - first))
        elided += end - begin
        at = end
    parts.append(text[at:])
    return Skeleton("".join(parts), bodies, elided)


def _defs(masked: str) -> list[tuple[int, int, bool]]:
    """Each def statement of the masked text: where its line starts, its indentation, and
    whether it is ``async``. (A search for "def " and a look back: a regex anchored at line
    starts costs ten times as much.)"""
    found = []
    at = masked.find("def ")
    while at >= 0:
        head = _blanks_before(masked, at)
        is_async = head < at and masked.endswith("async", 0, head)
        if is_async:
            head = _blanks_before(masked, head - 5)
        if head == 0 or masked[head - 1] == "\n":
            found.append((head, _indent(masked, head), is_async))
        at = masked.find("def ", at + 4)
    return found


def _blanks_before(masked: str, at: int) -> int:
    while at and masked[at - 1] == " ":
        at -= 1
    return at


def _body(masked: str, line_starts: list[int], line: int, indent: int, lines: int) -> tuple[int, int] | None:
    """The first and last lines of the body of the def on ``line`` (at ``indent``), where the
    body starts on a line after the header; None where it does not or cannot be read."""
    # The header: its logical line ends where brackets close, on a line not continued by "\".
    depth = 0
    end = line
    while True:
        a, b = line_starts[end - 1], line_starts[end]
        depth += _net(masked, a, b)
        stripped = masked[a:b].rstrip()
        if depth <= 0 and not stripped.endswith("\\"):
            break
        end += 1
        if end > lines:
            return None
    if depth != 0 or not stripped.endswith(":"):
        return None  # a body on the header's own line (``def f(): return x``)
    begin = line_starts[end]
    dedent = _dedent_at(indent)
    search = begin - 1  # the header's line break: a match starts at the break before its line
    counted = begin
    while True:
        hit = dedent.search(masked, search)
        stop = len(masked) if hit is None else hit.start() + 1
        depth += _net(masked, counted, stop)  # brackets open before ``stop`` (0 after the header)
        counted = stop
        if hit is None or (depth == 0 and not _continued(masked, begin, stop)):
            break
        search = stop
    region = masked[begin:stop]
    if not region.strip():
        return None
    first_line = bisect.bisect_right(line_starts, begin + (len(region) - len(region.lstrip(" \n"))))
    last_line = bisect.bisect_right(line_starts, begin + len(region.rstrip(" \n")) - 1)
    return first_line, last_line


def _end_col(text: str, masked: str, line_starts: list[int], line: int) -> int:
    """Where a body that ends on ``line`` ends, as the parser puts a def's end: after the last
    character that is not a blank or a comment (a ``;`` separator included), a UTF-8 column."""
    head = line_starts[line - 1]
    code = masked[head : line_starts[line]].rstrip()
    return len(text[head : head + len(code)].encode("utf-8"))


def _indent(masked: str, head: int) -> int:
    """The blanks that begin the line at ``head``."""
    at = head
    while masked[at] == " ":
        at += 1
    return at - head


def _continued(masked: str, begin: int, stop: int) -> bool:
    """Does the code before ``stop`` (after ``begin``) end with a line-continuing backslash?"""
    at = stop - 1
    while at > begin and masked[at] in " \n":
        at -= 1
    return masked[at] == "\\"


def _net(masked: str, a: int, b: int) -> int:
    """Brackets opened minus closed in ``masked[a:b]`` (strings and comments are masked)."""
    return (
        masked.count("(", a, b)
        + masked.count("[", a, b)
        + masked.count("{", a, b)
        - masked.count(")", a, b)
        - masked.count("]", a, b)
        - masked.count("}", a, b)
    )


# -- the parsed skeleton ----------------------------------------------------------------------------


def parse(text: str, filename: str, line_starts: list[int], skeleton: Skeleton) -> ast.Module | None:
    """The skeleton parsed, each elided def an ``ElidedDef``/``ElidedAsyncDef``; None where the
    skeleton does not parse or a body it left out is not where the lexer put it."""
    try:
        tree = ast.parse(skeleton.text, filename)
    except SyntaxError:
        return None
    bodies = skeleton.bodies
    found = 0
    stack: list[tuple[list[ast.AST], tuple[ast.AST, ...]]] = [(tree.body, ())]  # type: ignore[list-item]
    while stack:
        statements, outer = stack.pop()
        for stmt in statements:
            kind = type(stmt)
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                body = bodies.get(stmt.lineno)  # type: ignore[attr-defined]
                if body is None:
                    stack.append((stmt.body, (*outer, stmt)))  # type: ignore[attr-defined]
                    continue
                stub = stmt.body  # type: ignore[attr-defined]
                if (
                    len(stub) != 1
                    or stub[0].lineno != body.first
                    or not isinstance(stub[0], ast.Expr)
                    or (kind is ast.AsyncFunctionDef) != body.is_async
                ):
                    return None
                # The def, and each statement it ends, ends where its real body does.
                end = (stub[0].end_lineno, stub[0].end_col_offset)
                stmt.end_lineno, stmt.end_col_offset = body.last, body.end_col  # type: ignore[attr-defined]
                for holder in reversed(outer):
                    if isinstance(holder, ast.match_case):
                        continue  # no position of its own: its ``match`` has one
                    if (holder.end_lineno, holder.end_col_offset) != end:  # type: ignore[attr-defined]
                        break
                    holder.end_lineno, holder.end_col_offset = body.last, body.end_col  # type: ignore[attr-defined]
                elide(stmt, body.first, body.last, text, line_starts)  # type: ignore[arg-type]
                found += 1
            else:
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    inner = getattr(stmt, field, None)
                    if inner:
                        stack.append((inner, (*outer, stmt)))
    return tree if found == len(bodies) else None
