"""What the import says (issue 42.10): the markers a rewrite leaves doing nothing, as one finding
pass for the import hook's analysis (``engine.findings.analyze(report=True)``).

The hook warns of them at the module's lines and keeps the warnings with its cached code
(hook/keptwarnings.py). The pass runs ``check``'s lint and ledger, cut to what the module alone can
say, and cheap where nothing is left to say: lint reads no hashability (JR003 is ``check``'s),
and the ledger runs only where some mention of a marker is not read by a use (``nothing_to_settle``).
"""

from __future__ import annotations

import ast
import bisect
from typing import TYPE_CHECKING

from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.findings import ledger
from jaxrewrite.engine.findings import lint as linting
from jaxrewrite.engine.read.scopes import ScopeTree
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.diagnostics import suppressed

if TYPE_CHECKING:
    from jaxrewrite.engine.build import Analyzer


#: What the import hook says at import (``PASS``): the markers a rewrite leaves doing
#: nothing, read from this module alone. Not JR003 (the marker acts, and JAX refuses an
#: unhashable static argument loudly at the call), nor JR009 (a name from another module: its
#: verdict depends on a file the module's cache key does not cover; ``check`` reads it), nor the
#: findings at uses (JR010-JR012: ``check``'s), nor JR001 (the hook reads only modules that opt in).
#: A noqa comment on the line silences one as it does for ``check``.
REPORTED_AT_IMPORT = frozenset(
    rule.code
    for rule in (
        rules.NO_TRANSFORM,
        rules.UNKNOWN_TRANSFORM,
        rules.UNSEEN_LEVEL,
        rules.DOES_NOTHING,
        rules.HELD_IN_PYTREE,
        rules.OWN_FLATTEN,
    )
)


def PASS(result: Analysis, scopes: ScopeTree, tree: ast.Module, walk: Analyzer) -> None:
    """The import hook's finding pass: lint without JR003 (that marker acts, and JAX refuses an
    unhashable static at the call; reading hashability was most of lint's cost at import), the
    ledger without JR009 and only where some marker mention is not read by a use, and of their
    findings those ``REPORTED_AT_IMPORT`` that no noqa silences; what the walk found itself (a
    refusal, JR005) stays as it was."""
    walked = {id(d) for d in result.diagnostics}
    linting.PASS(result, scopes, tree, walk, hashing=False)
    if not nothing_to_settle(result, tree, walk.relevant, walk):
        ledger.build(result, scopes, tree, walk, None, imports=False)
    if len(result.diagnostics) > len(walked):
        lines = result.source.text.splitlines()
        result.diagnostics[:] = [
            d
            for d in result.diagnostics
            if id(d) in walked or (d.code in REPORTED_AT_IMPORT and not suppressed(d, lines))
        ]


def nothing_to_settle(
    result: Analysis, module: ast.Module, names: set[str] | None, walk: Analyzer
) -> bool:
    """Whether ``build`` (without JR009, as the import hook runs it) would report nothing: every
    mention of a name that may spell a marker (``names``, filters.marker_names) is in a
    top-level import, on a comment line, or in the annotation of a parameter a use of this
    module reads, so each entry would settle as applied. A text count, conservative: any other
    mention (an alias, a field, a variable, a string elsewhere) and the ledger runs. What lets
    the hook say which markers do nothing for the price of a search where every one does something.
    """
    if not names or walk.unseen or walk.unknown_calls or walk.refused_defs or walk.twins:
        return False
    if result.registrations or result.fields or any(use.leaves for use in result.uses):
        return False
    src = result.source
    spans = [
        (src.start(stmt), src.end(stmt))
        for stmt in module.body
        if isinstance(stmt, (ast.Import, ast.ImportFrom))
    ]
    for use in result.uses:
        for param in use.signature.params:
            annotation = getattr(param.node, "annotation", None)
            if param.markers & use.transform.markers and annotation is not None:
                spans.append((src.start(annotation), src.end(annotation)))
    spans.sort()
    starts = [start for start, _ in spans]
    text = src.text
    for name in names:
        at = text.find(name)
        while at >= 0:
            k = bisect.bisect_right(starts, at) - 1
            if not (k >= 0 and at < spans[k][1]):
                line = bisect.bisect_right(src.line_starts, at)
                if not text[src.line_starts[line - 1] : at].lstrip().startswith("#"):
                    return False
            at = text.find(name, at + len(name))
    return True
