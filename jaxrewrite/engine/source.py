"""The text being rewritten: AST positions to string offsets, and located errors."""

from __future__ import annotations

import ast
import bisect
import difflib
import re
from collections.abc import Iterable
from functools import cached_property
from itertools import accumulate

from jaxrewrite.errors import RewriteError

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def source_lines(text: str) -> list[str]:
    """``text`` split into lines with their endings, the way Python's tokenizer counts lines.

    ``str.splitlines`` also breaks at form feeds and other Unicode separators, which would
    shift every offset after one (PEP 8 even recommends form feeds as page breaks).
    """
    if "\r" not in text:  # the common case: split at "\n" alone, at C speed
        parts = text.split("\n")
        lines = [part + "\n" for part in parts[:-1]]
        if parts[-1]:
            lines.append(parts[-1])
        return lines
    return _LINE.findall(text)


def unified_diff(before: str, after: str, display: str) -> str:
    """A unified diff, ``a/``/``b/`` headers, lines split as Python counts them (a form feed does
    not end a line), and git's marker after a last line without a line break."""
    lines = difflib.unified_diff(source_lines(before), source_lines(after), f"a/{display}", f"b/{display}")
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)


def lines_containing(text: str, line_starts: list[int], words: Iterable[str]) -> list[int]:
    """Sorted 1-based lines whose text contains any of ``words``: a substring search (a superset
    of real mentions, since strings and comments count too), at C speed, one hit per line."""
    lines: set[int] = set()
    for word in words:
        at = text.find(word)
        while at >= 0:
            line = bisect.bisect_right(line_starts, at)
            lines.add(line)
            at = text.find(word, line_starts[line] if line < len(line_starts) else len(text))
    return sorted(lines)


class Source:
    """One module's text; AST columns are UTF-8 byte offsets, so convert per line."""

    def __init__(self, text: str, filename: str) -> None:
        self.text = text
        self.filename = filename

    @cached_property
    def lines(self) -> list[str]:
        """Lines as Python numbers them: ended by \\n, \\r\\n or \\r only (not \\f, \\x1c, \\u2028...)."""
        return source_lines(self.text)

    @cached_property
    def ascii(self) -> bool:
        """An ASCII text has byte columns equal to character columns: no per-line conversion."""
        return self.text.isascii()

    @cached_property
    def line_starts(self) -> list[int]:
        """Offset of each line's first character (index 0 is line 1), plus the text's end."""
        text = self.text
        if "\r" in text or "lines" in self.__dict__:
            return list(accumulate(map(len, self.lines), initial=0))
        # Hot path of a cold import: line lengths straight from a split, without the lines.
        parts = text.split("\n")
        starts = list(accumulate(map((1).__add__, map(len, parts[:-1])), initial=0))
        if parts[-1]:
            starts.append(len(text))
        return starts

    def offset(self, lineno: int, col: int) -> int:
        """String offset of an AST (line, byte column) position."""
        if not self.ascii:
            line = self.lines[lineno - 1] if lineno <= len(self.lines) else ""
            if not line.isascii():
                col = len(line.encode("utf-8")[:col].decode("utf-8", "replace"))
        return self.line_starts[lineno - 1] + col

    def start(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def segment(self, node: ast.AST) -> str:
        return self.text[self.start(node) : self.end(node)]

    def error(self, node: ast.AST, code: str, msg: str) -> RewriteError:
        """A located RewriteError; ``code`` is one of ``diagnostics.CODES``."""
        return RewriteError.at(node, code, msg, self.filename, [line.rstrip("\r\n") for line in self.lines])
