"""The text being rewritten: AST positions to string offsets, and located errors."""

from __future__ import annotations

import ast
import bisect
import difflib
import re
from collections.abc import Sequence
from functools import cached_property
from itertools import accumulate

from jaxrewrite.errors import RewriteError

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def source_lines(text: str) -> list[str]:
    """``text`` split into lines with their endings as Python's tokenizer counts them
    (``str.splitlines`` also breaks at form feeds, which would shift every offset after one)."""
    return _LINE.findall(text)


#: A span of the old text and what replaces it: ``splice.Edit``'s fields (this module is below it).
Change = tuple[int, int, str]


def unified_diff(
    before: str, after: str, display: str, changes: Sequence[Change] | None = None
) -> str:
    """A unified diff with ``a/``/``b/`` headers, lines as Python counts them, and git's marker
    after a last line without a line break. ``changes``: the edits that made ``after``; then only
    the lines they touch are compared (difflib over a whole migrated module is quadratic)."""
    old, new = source_lines(before), source_lines(after)
    codes = None if changes is None else _known_opcodes(before, after, old, new, changes)
    if codes is None:
        matcher = difflib.SequenceMatcher(None, old, new)
    else:  # known already: difflib's hunk grouping, none of its search
        matcher = difflib.SequenceMatcher()
        matcher.opcodes = codes  # type: ignore[attr-defined]
    path = display.lstrip("/")  # an absolute path: ``a/tmp/x.py``, not ``a//tmp/x.py``
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(3):
        if not out:
            out += [f"--- a/{path}\n", f"+++ b/{path}\n"]
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += [" " + line for line in old[a1:a2]]
                continue
            out += ["-" + line for line in old[a1:a2]] + ["+" + line for line in new[b1:b2]]
    return "".join(
        line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
        for line in out
    )


def _range(start: int, stop: int) -> str:
    """A hunk's range as difflib (and diff -u) write it."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _known_opcodes(
    before: str, after: str, old: list[str], new: list[str], changes: Sequence[Change]
) -> list[tuple[str, int, int, int, int]] | None:
    """difflib's opcodes from the edits: the lines each run of touching edits spans, compared by
    difflib on their own, equal lines between. None if an edit's lines do not line up (the caller
    then compares everything)."""
    old_starts = list(accumulate(map(len, old), initial=0))
    new_starts = list(accumulate(map(len, new), initial=0))
    runs: list[list[int]] = []  # [first old line, end old line, shift before, shift after]
    shift = 0
    for start, end, text in sorted(changes):
        first = bisect.bisect_right(old_starts, start) - 1
        last = min(bisect.bisect_right(old_starts, end), len(old))  # through the line ``end`` is on
        if runs and first <= runs[-1][1]:
            runs[-1][1] = max(runs[-1][1], last)
        else:
            runs.append([first, last, shift, shift])
        shift += len(text) - (end - start)
        runs[-1][3] = shift
    #: (old first, old end, new first, new end) of each run
    spans: list[tuple[int, int, int, int]] = []
    i = j = 0
    for first, last, shift_before, shift_after in runs:
        j1 = _line_starting(new_starts, old_starts[first] + shift_before)
        j2 = _line_starting(new_starts, old_starts[last] + shift_after)
        # Equal texts between line starts split into as many lines: their counts agree too.
        if j1 is None or j2 is None:
            return None
        if before[old_starts[i] : old_starts[first]] != after[new_starts[j] : new_starts[j1]]:
            return None
        spans.append((first, last, j1, j2))
        i, j = last, j2
    if before[old_starts[i] :] != after[new_starts[j] :]:
        return None
    codes: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for index, (first, last, j1, j2) in enumerate(spans):
        # Each run compared with up to 3 equal lines around it (the context difflib would see when
        # it chooses among equally long matches), never into the next run: slices stay small.
        up = min(3, first - i)
        following = spans[index + 1][0] if index + 1 < len(spans) else len(old)
        down = min(3, following - last)
        first, j1, last, j2 = first - up, j1 - up, last + down, j2 + down
        codes.append(("equal", i, first, j, j1))
        for tag, a1, a2, b1, b2 in difflib.SequenceMatcher(
            None, old[first:last], new[j1:j2]
        ).get_opcodes():
            codes.append((tag, a1 + first, a2 + first, b1 + j1, b2 + j1))
        i, j = last, j2
    codes.append(("equal", i, len(old), j, len(new)))
    merged: list[tuple[str, int, int, int, int]] = []
    for code in codes:  # one equal run between hunks, as difflib has: its grouping splits long ones
        if code[1] == code[2] and code[3] == code[4]:
            continue
        if merged and code[0] == "equal" == merged[-1][0]:
            merged[-1] = ("equal", merged[-1][1], code[2], merged[-1][3], code[4])
        else:
            merged.append(code)
    return merged


def _line_starting(starts: list[int], offset: int) -> int | None:
    """The index of the line starting at ``offset`` (or of the end), None if none does."""
    at = bisect.bisect_left(starts, offset)
    return at if at < len(starts) and starts[at] == offset else None


class Source:
    """One module's text; AST columns are UTF-8 byte offsets, so convert per line."""

    def __init__(self, text: str, filename: str) -> None:
        self.text = text
        self.filename = filename

    @cached_property
    def lines(self) -> list[str]:
        """Lines as Python numbers them: ended by \\n, \\r\\n or \\r only (not \\f, \\x1c,
        \\u2028...)."""
        return source_lines(self.text)

    @cached_property
    def line_starts(self) -> list[int]:
        """Offset of each line's first character (index 0 is line 1), plus the text's end."""
        return list(accumulate(map(len, self.lines), initial=0))

    def offset(self, lineno: int, col: int) -> int:
        """String offset of an AST (line, byte column) position."""
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
        """A located RewriteError (``code``: ``diagnostics.CODES``) naming its node by id
        (``about``)."""
        err = RewriteError.at(node, code, msg, self.filename, self.bare_lines)
        err.about = id(node)  # type: ignore[attr-defined]
        return err

    @cached_property
    def bare_lines(self) -> list[str]:
        """The lines without their endings, split once however many errors the text has."""
        return [line.rstrip("\r\n") for line in self.lines]
