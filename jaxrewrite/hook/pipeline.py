"""What the loader does to an opted-in file, as one value: rewrite, compile, under a cache name.

One route from text to code: ``rewrite_source``'s text, compiled (the text ``show`` prints is the
code that runs). An integration (pytest's assertion rewriting) replaces the compile step and names
itself, so its pycs are never served to the default pipeline, nor the default's to it.

A module's RewriteWarnings are issued while it is rewritten; a warm import analyses nothing, so
they travel with the code: held beside it here, written after it in the pyc (hook/pycfile.py),
and issued again whenever cached code is served (the finder's ``_served``).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType
from weakref import WeakKeyDictionary

from jaxrewrite.errors import Notes
from jaxrewrite.header import Header, scan_header

#: Code objects compare by content, not by file: equal code comes from equal text, whose notes
#: are equal too (the file they name is the caller's to give).
_HELD: WeakKeyDictionary[CodeType, Notes] = WeakKeyDictionary()


def keep(code: CodeType, notes: Notes) -> CodeType:
    """Hold ``notes`` beside ``code`` (nothing where there are none); gives back ``code``. The
    table is looked at only when it holds something: a code object hashes by its content."""
    if notes:
        _HELD[code] = notes
    elif _HELD:
        _HELD.pop(code, None)
    return code


def held(code: CodeType) -> Notes:
    return _HELD.get(code, ()) if _HELD else ()


def _compile(text: str, path: str, optimize: int) -> CodeType:
    return compile(text, path, "exec", dont_inherit=True, optimize=optimize)


def rewrite_text(text: str, path: str, header: Header | None = None) -> tuple[str, Notes]:
    """The rewritten text and the warnings issued on the way (the markers that do nothing)."""
    from jaxrewrite.engine.rewrite import rewrite_with_notes  # the engine: on a cache miss only

    return rewrite_with_notes(text, path, header=header, report=True)


@dataclass(frozen=True)
class Pipeline:
    """``source bytes -> code`` for one opted-in module."""

    #: What the steps beyond the default are (part of the cache file name: letters and digits).
    name: str = ""
    #: text, filename, optimisation level -> code.
    to_code: Callable[[str, str, int], CodeType] = _compile

    def compile(
        self, data: bytes, path: str, optimize: int, header: Header | None = None
    ) -> CodeType:
        """Decode as Python does (PEP 263), rewrite, compile; the warnings held with the code."""
        text = importlib.util.decode_source(data)
        rewritten, said = rewrite_text(text, path, scan_header(text) if header is None else header)
        return keep(self.to_code(rewritten, path, optimize), said)


DEFAULT = Pipeline()


def compile_source(data: bytes, path: str, optimize: int = -1) -> CodeType:
    """What the hook and runner execute for an opted-in file, at optimisation level ``optimize``."""
    return DEFAULT.compile(data, path, optimize)
