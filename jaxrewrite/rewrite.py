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
    return splice.apply(source, _plan(source, filename))


def _plan(source: str, filename: str) -> list[splice.Edit]:
    """Parse and plan with the cyclic collector paused, and free the AST before resuming it.

    The AST is large and planning allocates many small objects: a running collector would
    rescan the whole tree again and again, and re-enabling it while the tree is alive would
    make the next young collection walk every node once more. Breaking the scopes' reference
    cycles lets plain reference counting free everything when this function returns.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        tree = ast.parse(source, filename)
        src = Source(source, filename)
        scopes = build_scopes(tree, source, src.line_starts)
        try:
            return plan_module(scopes, src)
        finally:
            scopes.release()
            del tree, scopes
    finally:
        if collecting:
            gc.enable()


def compile_source(data: bytes, path: str, optimize: int = -1) -> CodeType:
    """Decode file bytes as Python does (PEP 263), rewrite, compile: what the hook and runner execute."""
    text = rewrite_source(importlib.util.decode_source(data), path)
    return compile(text, path, "exec", dont_inherit=True, optimize=optimize)
