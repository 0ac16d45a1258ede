"""rewrite_source: analyze, raise the first error, plan, splice. The single source of truth for what
runs."""

from __future__ import annotations

from typing import Any

from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.edits.render import plan
from jaxrewrite.engine.findings import analyze
from jaxrewrite.errors import Notes, say


def rewrite_source(source: str, filename: str = "<string>", **options: Any) -> str:
    """Return ``source`` with Static annotations turned into explicit transform keywords (the
    very same string without the ``# jaxrewrite: enable`` pragma or where nothing needs one).
    RewriteError for misuse, SyntaxError for source that does not parse; ``options`` are
    ``jaxrewrite.analyze``'s (``report``: also warn as the import hook does)."""
    return rewrite_with_notes(source, filename, **options)[0]


def rewrite_with_notes(text: str, filename: str, **options: Any) -> tuple[str, Notes]:
    """``rewrite_source``'s text and the warnings issued on the way (the hook keeps them with the
    code). The analysis pauses the collector itself; planning and splicing need no pause."""
    analysis = analyze(text, filename, **options)
    return rewritten(analysis), notes(analysis)


def rewritten(analysis: Analysis) -> str:
    """The text an analysis calls for: its warnings are issued, its first error raised."""
    say(notes(analysis), analysis.source.filename)
    if analysis.errors:
        raise analysis.errors[0].error()
    return splice.apply(analysis.source.text, plan(analysis))


def notes(analysis: Analysis) -> Notes:
    """The analysis's warnings, each message led by its code (``-W ignore:JR002`` filters one)."""
    return tuple((f"{d.code} {d.message}", d.line) for d in analysis.diagnostics if not d.is_error)
