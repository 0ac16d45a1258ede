"""rewrite_source: analyze, raise the first error, plan, splice. The single source of truth for what runs."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

from jaxrewrite.engine import skeleton, splice
from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.analyze import analyze, collector_paused
from jaxrewrite.engine.filters import FAST, Filters
from jaxrewrite.header import Header
from jaxrewrite.engine.plan import plan
from jaxrewrite.engine.scopes import Binding
from jaxrewrite.engine.source import Source
from jaxrewrite.errors import RewriteError, RewriteWarning

#: The skeleton is read where it leaves out at least this share of the text: parsing it and the
#: printed text beats parsing the module once and compiling the tree (engine/treecode.py) only
#: where most of the module is bodies (benchmarks/bench_cold.py: the realistic module leaves out
#: about 70%; the dense one, one-line bodies, nothing).
SKELETON_WORTH = 0.4


def rewrite_source(
    source: str,
    filename: str = "<string>",
    *,
    environment: Mapping[str, Binding] | None = None,
    require_pragma: bool = True,
    filters: Filters = FAST,
    header: Header | None = None,
) -> str:
    """Return ``source`` with Static annotations turned into explicit transform keywords.

    The very same string comes back when the header has no ``# jaxrewrite: enable``
    pragma, or when nothing in the module needs a keyword. Raises RewriteError for misuse
    and Python's own SyntaxError for source that does not parse.
    """
    with collector_paused():
        analysis = analyze(
            source, filename, environment=environment, require_pragma=require_pragma, filters=filters, header=header
        )
        try:
            return rewritten(analysis)
        finally:
            del analysis  # it holds parts of the AST: free them before the collector resumes


def skeleton_rewrite(source: str, filename: str, header: Header | None = None, least: float = SKELETON_WORTH) -> str | None:
    """``rewrite_source``'s text read from the module's skeleton (engine/skeleton.py: bodies the
    analysis leaves unwalked are not parsed), for a caller that compiles the text, so that a
    syntax error in a body still surfaces; None where ``rewrite_source`` must decide: no skeleton
    leaves out ``least`` of the text, or the analysis has anything to say (a warning, an error).
    Same text by construction; checked over the golden files and the corpus (tests/test_skeleton.py)."""
    src_starts = Source(source, filename).line_starts
    found = skeleton.build(source, src_starts)
    if found is None or found.elided < least * len(source):
        return None
    with collector_paused():
        tree = skeleton.parse(source, filename, src_starts, found)
        if tree is None:
            return None
        try:
            analysis = analyze(source, filename, header=header, parsed=tree)
        except (RewriteError, SyntaxError, RecursionError):
            return None  # a body read back that does not parse, say: the whole reading says why
        del tree
        try:
            if analysis.diagnostics:
                return None
            return splice.apply(source, plan(analysis))
        finally:
            del analysis


def rewritten(analysis: Analysis) -> str:
    """The text an analysis calls for: its warnings are issued, its first error raised."""
    return splice.apply(analysis.source.text, checked_plan(analysis))


def checked_plan(analysis: Analysis) -> list[splice.Edit]:
    """The analysis's edits, once its warnings are issued and its first error raised."""
    for finding in analysis.diagnostics:
        if not finding.is_error:
            warnings.warn_explicit(finding.message, RewriteWarning, finding.filename, finding.line)
    analysis.raise_first_error()
    return plan(analysis)
