"""Trace-time errors found before anything runs (JR006): arguments a transform traces that the
function's body needs as Python values, or that JAX cannot trace at all.

The model is Julia's JET.jl: report the run-time error the analysis can prove. Precision comes
first, so a finding needs all of: a use of a transform that traces abstractly (``abstract``
in the table), the signature JAX sees (no unknown decorator in between), the parameter not static
for that use (its markers, or the spec as JAX reads it: ``engine.walk.specs.read``), the parameter
never rebound, and a use of it that runs on every trace (no branch, loop body, handler or
``ensure_compile_time_eval`` in between). Pure: it reads the Analysis and the live scopes.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from jaxrewrite.engine.analysis import Analysis, Use, UseKind
from jaxrewrite.engine.findings import library, staged
from jaxrewrite.engine.findings.call_arguments import Sites
from jaxrewrite.engine.findings.checks.traced_argument import RULE as TRACED
from jaxrewrite.engine.findings.plain_classes import Classes
from jaxrewrite.engine.findings.traced_body import Body, Traced
from jaxrewrite.engine.read.filters import Filters
from jaxrewrite.engine.read.handwritten import Refused
from jaxrewrite.engine.read.lexer import code_mentions
from jaxrewrite.engine.read.recognise import classify
from jaxrewrite.engine.read.resolve import qualname
from jaxrewrite.engine.read.scopes import Scope, ScopeTree
from jaxrewrite.engine.read.signature import Kind, Param, Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import FAMILIES, SIGNATURE_KEEPING, SpecKind, Transform
from jaxrewrite.engine.walk import specs
from jaxrewrite.errors import RewriteError

if TYPE_CHECKING:
    from jaxrewrite.engine.walk.walker import Walked

Function = ast.FunctionDef | ast.AsyncFunctionDef
CODE = TRACED.code

#: Every transform use, marked or not (as ``EXHAUSTIVE``), with the text searches that only skip
#: work that cannot matter: call sites where a def of the module is a first argument, and
#: function bodies with no def, class or decorator walked only when such a call needs them.
TRACE = Filters(marker_names=False, first_arguments=True)

#: Text every module with a use of an ``abstract`` row contains (a cheap superset): their names.
_NEEDLES = tuple(
    sorted(
        {
            row.name.rpartition(".")[2]
            for rows in FAMILIES.values()
            for row in rows.values()
            if row.abstract
        }
    )
)


#: What follows a needle that names no transform: a "." (``pjit.jit_p``: something inside what
#: the name is; a transform is named by the last part of a reference) or ``import`` (the module
#: path of a from-import, ``from jax._src.pjit import reshard``, which binds the names after it).
_NOT_A_REFERENCE = re.compile(r"\s*\.|[ \t]+import\b")


def may_trace(text: str) -> bool:
    """Cheap pre-filter: False means ``findings.trace_findings`` finds nothing in ``text``: a use
    names its transform in code, never only inside another word, a docstring or a comment, nor as a
    module (over jax's source, 121 of the 240 files that hold a needle anywhere name one in code
    so)."""
    return any(needle in text for needle in _NEEDLES) and code_mentions(
        text, _NEEDLES, _NOT_A_REFERENCE
    )


def may_trace_bytes(data: bytes) -> bool:
    return any(needle.encode() in data for needle in _NEEDLES)


def PASS(result: Analysis, scopes: ScopeTree, tree: ast.Module, walk: Walked) -> None:
    """The trace-time analysis as a pass of ``analyze``: JR006 findings, and what they name."""
    defs = {id(func): scope for func, scope in scopes.defs}
    for diagnostic, func, name in findings(
        list(result.uses), defs, tree, result.source, result.header.enabled
    ):
        result.diagnostics.append(diagnostic)
        if name is not None:  # None: a field of a pytree argument, static in its class, not here
            result.must_be_static.append((func, name))
    result.diagnostics.extend(library.findings(tree, scopes, result.source))


def uses_jaxrewrite(module: ast.Module, enabled: bool) -> bool:
    """Does the module use jaxrewrite (its pragma, or an import of it)? Then the fix is a marker."""
    if enabled:
        return True
    for node in module.body:
        if (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").split(".")[0] == "jaxrewrite"
        ):
            return True
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] == "jaxrewrite" for a in node.names
        ):
            return True
    return False


def findings(
    uses: list[Use], defs: dict[int, Scope], module: ast.Module, src: Source, enabled: bool
) -> list[tuple[Diagnostic, Function, str | None]]:
    """JR006 for every traced parameter the body needs as a Python value (or JAX cannot trace)."""
    by_def: dict[int, list[Traced]] = {}
    targets: dict[int, Function] = {}
    staging: dict[int, tuple[ast.expr, Transform]] = {}
    classes = Classes(module)
    sites: Sites | None = None
    for use in uses:
        func, transform, sig = use.target, use.transform, use.signature
        if id(func) not in defs or not (transform.abstract or transform.spec is SpecKind.DIFF):
            continue
        if not _signature_seen(use, func, defs[id(func)]):
            continue
        if transform.abstract:
            traced = traced_params(use, sig, transform, src)
        else:
            traced = _differentiated(use, sig)
        if traced is None:
            continue
        if sites is None:
            scope = defs[id(func)].module()
            sites = Sites(
                module,
                scope,
                lambda b: b.body.parent is not None and classes.plain(b, b.body.parent),
            )
            classes.owners = sites.owners  # the same walk found each method's class
        decorated = use.kind is UseKind.DECORATOR
        axes = transform.spec is SpecKind.AXES
        passed = {} if axes else sites.passed(use.node, func, decorated, defs[id(func)])
        targets[id(func)] = func
        if transform.abstract and transform.spec is not SpecKind.AXES:  # jit and kin stage calls
            staging.setdefault(id(func), (use.node, transform))
        seen = by_def.setdefault(id(func), [])
        names = {t.param.name for t in seen}
        seen.extend(
            Traced(p, use.node, transform, tuple(passed.get(p.name, ())))
            for p in traced
            if p.name not in names
        )
    out: list[tuple[Diagnostic, Function, str | None]] = []
    if not by_def:
        return out
    marker_fix = "jaxrewrite" in src.text and uses_jaxrewrite(module, enabled)
    for key, traced_list in by_def.items():
        func = targets[key]
        reader = Body(func, defs[key], src, defs)
        arrays = reader.arrays(traced_list)
        located: set[tuple[int, int]] = set()
        for t in traced_list:
            found = list(reader.findings(t, classes, marker_fix, arrays - {t.param.name}))
            located.update((d.line, d.col) for d, _ in found)
            out.extend((d, func, t.param.name if fixable else None) for d, fixable in found)
        if key in staging:
            use_node, transform = staging[key]
            found_staged = staged.findings(reader, use_node, transform, src, located)
            out.extend((d, func, None) for d in found_staged)
    return out


def _signature_seen(use: Use, func: Function, scope: Scope) -> bool:
    """Does the transform see the def's own signature? Not through a decorator it cannot name."""
    node = use.node
    decorators = func.decorator_list
    if any(d is node for d in decorators):
        below = decorators[[id(d) for d in decorators].index(id(node)) + 1 :]
    else:
        below = decorators
    return all(
        classify(d, scope) is not None or qualname(d, scope) in SIGNATURE_KEEPING for d in below
    )


def _differentiated(use: Use, sig: Signature) -> list[Param] | None:
    """What grad and its kin trace, read only in the default form (the first parameter): their
    tracers hold values, so only a type JAX cannot trace at all fails there (``Body.findings``)."""
    if any(kw.arg == use.transform.argnums or kw.arg is None for kw in use.written):
        return None
    first = [p for p in sig.params if p.position == 0 and p.kind is not Kind.VAR_POSITIONAL]
    return first or None


def traced_params(use: Use, sig: Signature, t: Transform, src: Source) -> list[Param] | None:
    """The parameters this use traces; None when the spec cannot be read (then nothing is said)."""
    params = [p for p in sig.params if p.kind not in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)]
    params = [p for p in params if not (p.markers & t.markers)]
    try:
        meaning = specs.read(use, sig, src).meaning
    except (Refused, RewriteError):
        return None
    nums = meaning.get(t.argnums, frozenset())
    names = meaning.get(t.argnames, frozenset()) if t.argnames else frozenset()
    return [p for p in params if p.position not in nums and p.name not in names]
