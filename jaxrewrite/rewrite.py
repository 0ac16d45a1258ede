"""rewrite_source: the pure engine (header check, planning, splicing). Being written now."""

from __future__ import annotations

import importlib.util
from types import CodeType


def rewrite_source(source: str, filename: str = "<string>") -> str:
    """Return ``source`` with Static annotations turned into explicit transform keywords.

    Unchanged (the same string) when the header has no ``# jaxrewrite: enable`` pragma.
    Raises RewriteError for misuse and SyntaxError for source that does not parse.
    """
    raise NotImplementedError


def compile_source(data: bytes, path: str, optimize: int = -1) -> CodeType:
    """Decode file bytes as Python does (PEP 263), rewrite, compile: what the hook and runner execute."""
    text = rewrite_source(importlib.util.decode_source(data), path)
    return compile(text, path, "exec", dont_inherit=True, optimize=optimize)
