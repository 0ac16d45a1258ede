"""Edits by string offset, applied in one pass: user text between edits is never touched."""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass

from jaxrewrite.engine.read.source import source_lines


@dataclass(frozen=True, order=True)
class Edit:
    """Replace ``text[start:end]`` (an insertion when start == end)."""

    start: int
    end: int
    text: str


def apply(text: str, edits: list[Edit]) -> str:
    """Splice ``edits`` into ``text``; they must not overlap (insertions at one point keep
    order)."""
    if not edits:
        return text
    out: list[str] = []
    pos = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if edit.start < pos:
            raise AssertionError(
                f"jaxrewrite internal error: overlapping edits at offset {edit.start}"
            )
        out.append(text[pos : edit.start])
        out.append(edit.text)
        pos = edit.end
    out.append(text[pos:])
    return "".join(out)


def replace(text: str, start: int, end: int, new: str) -> Edit:
    """Replace a span with single-line ``new``: line numbers must never move, so a multi-line
    span keeps its line breaks and comments, and ``new`` goes on its last line at its indent."""
    *lines, last = source_lines(text[start:end])
    comments = comments_by_line(text[start:end]) if lines else {}
    pieces = []
    for index, line in enumerate(lines):
        comment = comments.get(index)
        ending = line[len(line.rstrip("\r\n")) :]
        pieces.append(("  " + comment if comment else "") + ending)
    pieces.append(last[: len(last) - len(last.lstrip(" \t"))] + new)
    return Edit(start, end, "".join(pieces))


def comments_by_line(fragment: str) -> dict[int, str]:
    """Comments inside an expression fragment, by 0-based line within the fragment (one
    tokenizer for the rewrite and migrate)."""
    found: dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO("(" + fragment + "\n)").readline):
            if tok.type == tokenize.COMMENT:
                found[tok.start[0] - 1] = tok.string
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def comments(fragment: str) -> list[str]:
    """The comments of a fragment in order (a ``#`` inside a string is none): migrate keeps those
    of what it deletes, and leaves an import with a comment alone."""
    return list(comments_by_line(fragment).values()) if "#" in fragment else []
