"""The one lexer of Python text by regular expression: strings and comments masked, at C speed,
so that a text search for code is not fooled by a docstring or a comment (``tokenize`` costs what
a parse does); where it could be wrong it admits the text, and the parse decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: A string literal (its prefix letters are left as they are: they are no bracket nor quote) or
#: a comment, matched left to right so that each is read as the tokenizer reads it. Each loop is
#: unrolled (a run of plain characters, then an escape or a lone quote, then a run...), so a
#: string left open is given up in one pass: ``(?:[^']+|...)*`` would try every split of it.
_STRINGS = (
    r"'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    r'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
)
MASKED_TOKEN = re.compile(r"#[^\n]*|" + _STRINGS, re.DOTALL)


def _formatted(text: str, quote: int) -> bool:
    """Do the letters right before the quote (a prefix has two at most) say f- or t-string?"""
    at = quote
    while at > quote - 2 and at and text[at - 1].isalpha():
        at -= 1
    prefix = text[at:quote].lower()
    return "f" in prefix or "t" in prefix


def _fields_closed(token: str) -> bool:
    """Does every replacement field of an f-string close inside it? One that does not was cut
    at a quote inside a field (PEP 701 allows that from Python 3.12): this lexer cannot tell."""
    depth = 0
    i, n = 0, len(token)
    while i < n:
        ch = token[i]
        if depth == 0 and ch in "{}" and token[i + 1 : i + 2] == ch:
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0


def code_mentions(text: str, names: tuple[str, ...], unless: re.Pattern[str] | None = None) -> bool:
    """Does one of ``names`` appear as a word in ``text`` outside its comments and strings
    (``unless`` what follows it matches)? A superset, for a pre-filter: an f-string counts as code,
    and so does the text where the lexer is unsure (an f-string cut at a quote in its fields,
    which Python 3.12 allows, may have hidden code after it)."""
    last = last_word(text, names)
    if last < 0:
        return False
    if "\r" in text:
        return True  # a comment would run past a lone \r, which ends a line
    code = MASKED_TOKEN.sub(" ", text)
    for name in names:
        if any(
            unless is None or unless.match(code, at + len(name)) is None
            for at in word_starts(code, name)
        ):
            return True
    for token in MASKED_TOKEN.finditer(text):
        if token.start() > last:
            break
        found = token.group()
        if found[0] != "#" and "{" in found and _formatted(text, token.start()):
            if not _fields_closed(found) or last_word(found, names) >= 0:
                return True
    return False


def last_word(text: str, names: tuple[str, ...]) -> int:
    """Where the last of ``names`` standing as a whole word starts in ``text``, -1 if none does."""
    return max((at for name in names for at in word_starts(text, name)), default=-1)


def any_word(text: str, names: tuple[str, ...]) -> bool:
    """Does one of ``names`` stand as a whole word in ``text``?"""
    return any(next(word_starts(text, name), None) is not None for name in names)


def word_starts(text: str, name: str) -> Iterator[int]:
    """Where ``name`` stands as a whole word in ``text`` (as ``\\bname\\b`` matches), by
    ``str.find``."""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        if not (at and _word(text[at - 1])) and not (end < len(text) and _word(text[end])):
            yield at
        at = text.find(name, end)


def _word(char: str) -> bool:
    return char == "_" or char.isalnum()
