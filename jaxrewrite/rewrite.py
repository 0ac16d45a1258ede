"""rewrite_source: header check, parse, plan, splice. The single source of truth for what runs."""

from __future__ import annotations

import ast
import gc
import importlib.util
import warnings
from types import CodeType

from jaxrewrite import splice
from jaxrewrite.errors import RewriteWarning
from jaxrewrite.plan import plan_module
from jaxrewrite.pragma import scan_header
from jaxrewrite.scopes import build_scopes
from jaxrewrite.source import Source


def rewrite_source(source: str, filename: str = "<string>") -> str:
    """Return ``source`` with Static annotations turned into explicit transform keywords.

    The very same string comes back when the header has no ``# jaxrewrite: enable``
    pragma, or when nothing in the module needs a keyword. Raises RewriteError for misuse
    and Python's own SyntaxError for source that does not parse.
    """
    header = scan_header(source)
    for lineno, word in header.unknown:
        warnings.warn_explicit(
            f"unknown jaxrewrite directive '# jaxrewrite: {word}' (only 'enable' exists)",
            RewriteWarning,
            filename,
            lineno,
        )
    if not header.enabled:
        return source
    # The module's AST is large and long-lived while planning allocates many small objects:
    # without a pause, the cyclic collector would rescan the whole tree again and again.
    collecting = gc.isenabled()
    gc.disable()
    try:
        tree = ast.parse(source, filename)
        src = Source(source, filename)
        edits = plan_module(build_scopes(tree, source, src.line_starts), src)
    finally:
        if collecting:
            gc.enable()
    return splice.apply(source, edits)


def compile_source(data: bytes, path: str, optimize: int = -1) -> CodeType:
    """Decode file bytes as Python does (PEP 263), rewrite, compile: what the hook and runner execute."""
    text = rewrite_source(importlib.util.decode_source(data), path)
    return compile(text, path, "exec", dont_inherit=True, optimize=optimize)
