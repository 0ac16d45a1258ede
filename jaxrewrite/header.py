"""Finding the opt-in pragma: ``# jaxrewrite: enable`` as a comment line in the module header.

The header is everything before the first statement other than the module docstring and
``from __future__`` imports. A pragma anywhere else (below the header, inside a string)
does not count; ``scan_header`` reports where such look-alikes are so ``show`` can say why.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

PRAGMA = "# jaxrewrite: enable"
_DIRECTIVE = re.compile(r"#\s*jaxrewrite\s*:\s*(?P<word>.*?)\s*$")
_LOOKALIKE = re.compile(r"^[ \t]*#[ \t]*jaxrewrite[ \t]*:[ \t]*enable[^\S\n]*$", re.MULTILINE)

#: What must appear in a file's bytes for it to possibly opt in.
NEEDLE = b"jaxrewrite"


@dataclass(frozen=True)
class Header:
    enabled: bool
    #: Lines that look like the pragma but do not count (below the header or inside a string).
    ignored_lines: tuple[int, ...]
    #: ``# jaxrewrite: <word>`` header directives other than ``enable``: (line, word).
    unknown: tuple[tuple[int, str], ...]


def scan_header(source: str) -> Header:
    """Read the header of ``source``, tokenizing up to its first ordinary statement."""
    enabled_line, unknown, header_end = _scan(source)
    lookalikes = (source.count("\n", 0, found.start()) + 1 for found in _LOOKALIKE.finditer(source))
    ignored = tuple(line for line in lookalikes if line != enabled_line)
    if enabled_line is not None and enabled_line >= header_end:
        enabled_line = None
    return Header(enabled_line is not None, ignored, tuple(u for u in unknown if u[0] < header_end))


def _scan(source: str) -> tuple[int | None, list[tuple[int, str]], int]:
    """(the first ``enable`` directive's line, the other directives, the line of the first
    ordinary statement: past the last line where there is none)."""
    enabled_line: int | None = None
    unknown: list[tuple[int, str]] = []
    seen_statement = False
    line_tokens: list[tokenize.TokenInfo] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                if line_tokens:
                    continue  # a comment after code on the same logical line is not a comment line
                match = _DIRECTIVE.match(tok.string)
                if match is not None:
                    word = match.group("word")
                    if word == "enable":
                        if enabled_line is None:
                            enabled_line = tok.start[0]
                    else:
                        unknown.append((tok.start[0], word))
                continue
            if tok.type in (tokenize.NL, tokenize.ENCODING, tokenize.INDENT, tokenize.DEDENT):
                continue
            if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if line_tokens:
                    if not _header_statement(line_tokens, first=not seen_statement):
                        return enabled_line, unknown, line_tokens[0].start[0]
                    seen_statement = True
                    line_tokens = []
                if tok.type == tokenize.ENDMARKER:
                    break
                continue
            line_tokens.append(tok)
            # Two tokens tell whether a line can still be part of the header: stop there.
            if len(line_tokens) == 2 and not _header_statement(line_tokens, not seen_statement):
                return enabled_line, unknown, line_tokens[0].start[0]
    except (tokenize.TokenError, SyntaxError):
        # Broken source: the compiler will report it; whatever header was read still counts.
        pass
    return enabled_line, unknown, source.count("\n") + 2


def _header_statement(tokens: list[tokenize.TokenInfo], first: bool) -> bool:
    """Is a logical line of these tokens (or starting with them) part of the header?"""
    head = tokens[0]
    if head.type == tokenize.STRING:
        return first and all(t.type == tokenize.STRING for t in tokens)
    return len(tokens) > 1 and head.string == "from" and tokens[1].string == "__future__"


def why_ignored(source: str, line: int) -> str:
    """Why ``scan_header`` did not accept the pragma look-alike at ``line``. A line that is only
    the pragma, read by the tokenizer yet no comment, lies inside a string (f-strings included)."""
    comments: set[int] = set()
    reached = 0  # the last line the tokenizer read: it stops at broken source
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            reached = max(reached, tok.end[0])
            if tok.type == tokenize.COMMENT:
                comments.add(tok.start[0])
    except (tokenize.TokenError, SyntaxError):
        pass
    if line not in comments and line <= reached:
        return "it is inside a string literal, not a comment"
    first = _scan(source)[2]
    header = "the first statement other than the docstring and 'from __future__' imports"
    if line in comments and first <= line:
        return f"it is below the module header, which ends at {header} (line {first})"
    return f"it is not a comment line in the module header (above {header})"


def header_statements(body: list[ast.stmt]) -> int:
    """How many of a module's first statements are its header (the docstring and the
    ``from __future__`` imports): the pragma goes before ``body[header_statements(body)]``."""
    index = 0
    for index, stmt in enumerate(body):
        docstring = (
            index == 0
            and isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str)
        )
        future = isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
        if not (docstring or future):
            return index
    return len(body)
