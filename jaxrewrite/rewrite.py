"""rewrite_source: header check, parse, plan, splice. The single source of truth for what runs."""

from __future__ import annotations

import ast
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
    tree = ast.parse(source, filename)
    if not _imports_jaxrewrite(tree):
        return source  # no marker can be spelled without importing jaxrewrite
    src = Source(source, filename)
    edits = plan_module(build_scopes(tree), src)
    return splice.apply(source, edits)


def _imports_jaxrewrite(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(alias.name.partition(".")[0] == "jaxrewrite" for alias in node.names):
                return True
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and (node.module or "").partition(".")[0] == "jaxrewrite":
                return True
    return False


def compile_source(data: bytes, path: str, optimize: int = -1) -> CodeType:
    """Decode file bytes as Python does (PEP 263), rewrite, compile: what the hook and runner execute."""
    text = rewrite_source(importlib.util.decode_source(data), path)
    return compile(text, path, "exec", dont_inherit=True, optimize=optimize)
