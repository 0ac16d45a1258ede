"""The hook's fast compile route: the cold path's ways to the code of the rewritten text that
parse less than ``compile(rewrite_source(text))`` does, behind the default pipeline's compile
step (hook/pipeline.py's ``compile_rewritten``) and nothing else.

- ``skeleton_rewrite`` (skeleton.py): the rewritten text read from the module's skeleton, the
  bodies the analysis never walks left unparsed; the hook then compiles that text.
- ``rewrite_tree`` (treecode.py, treenodes.py): the analysed tree with the edited expressions
  replaced by nodes, compiled instead of the printed text (one parse instead of two).

Both give exactly ``rewrite_source``'s text (its code, byte for byte), or step aside: checked over
the golden files and the corpus (tests/test_skeleton.py, tests/test_treecode.py) and at every
import with ``JAXREWRITE_VERIFY_AST=1``. The analysis never imports this package; it knows only
what an elided def is (engine/read/elided.py). Why keep it: benchmarks/bench_cold.py's realistic row
(docs/design.md has the figures).
"""

from __future__ import annotations

from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.analyze import collector_paused
from jaxrewrite.engine.findings import analyze
from jaxrewrite.engine.rewrite import checked_plan, notes
from jaxrewrite.errors import Notes
from jaxrewrite.engine.read.source import Source
from jaxrewrite.errors import RewriteError
from jaxrewrite.header import Header
from jaxrewrite.hook.fast import skeleton
from jaxrewrite.hook.fast.treecode import WORTH, Rewritten, rewrite_tree

__all__ = ["SKELETON_WORTH", "WORTH", "Rewritten", "rewrite_tree", "skeleton_rewrite"]

#: The skeleton is read where it leaves out at least this share of the text: parsing it and the
#: printed text beats parsing the module once and compiling the tree (treecode.py) only where
#: most of the module is bodies (benchmarks/bench_cold.py: the realistic module leaves out about
#: 70%; the dense one, one-line bodies, nothing).
SKELETON_WORTH = 0.4


def skeleton_rewrite(
    source: str, filename: str, header: Header | None = None, least: float = SKELETON_WORTH, report: bool = False
) -> tuple[str, Notes] | None:
    """``rewrite_source``'s text read from the module's skeleton (skeleton.py: bodies the analysis
    leaves unwalked are not parsed), for a caller that compiles the text, so that a syntax error
    in a body still surfaces, with the warnings issued on the way (``report``: also the markers
    that do nothing, ``analyze``'s); None where ``rewrite_source`` must decide: no skeleton leaves
    out ``least`` of the text, or the analysis finds an error. Same text by construction; checked
    over the golden files and the corpus (tests/test_skeleton.py)."""
    src_starts = Source(source, filename).line_starts
    found = skeleton.build(source, src_starts)
    if found is None or found.elided < least * len(source):
        return None
    with collector_paused():
        tree = skeleton.parse(source, filename, src_starts, found)
        if tree is None:
            return None
        try:
            analysis = analyze(source, filename, header=header, parsed=tree, report=report)
        except (RewriteError, SyntaxError, RecursionError):
            return None  # a body read back that does not parse, say: the whole reading says why
        del tree
        try:
            if any(d.is_error for d in analysis.diagnostics):
                return None
            return splice.apply(source, checked_plan(analysis)), notes(analysis)
        finally:
            del analysis
