"""Trace-time errors found before anything runs (JR006): arguments a transform traces that the
function's body needs as Python values, or that JAX cannot trace at all.

As Julia's JET.jl, report only the error the analysis can prove: a transform that traces
abstractly, the signature JAX sees, the parameter not static for that use, never rebound, and a use
of it that runs on every trace; or a library function handed to a transform directly
(``jax.jit(jnp.linalg.norm)(x, ord=o)``), whose parameters the derived table says.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

from jaxrewrite.engine.analysis import Analysis, Use, UseKind
from jaxrewrite.engine.findings.call_arguments import (
    Passed,
    Sites,
    param_reading,
    scalar_or_array,
)
from jaxrewrite.engine.findings.checks.traced_argument import RULE as TRACED
from jaxrewrite.engine.findings.flow import ARRAY, TREE, Flow, Function, Tree
from jaxrewrite.engine.findings.traced_body import NOT_JAX, Body, concrete_arguments
from jaxrewrite.engine.read.filters import Filters
from jaxrewrite.engine.read.handwritten import Refused
from jaxrewrite.engine.read.lexer import code_mentions
from jaxrewrite.engine.read.nodes import bindings, name_assigned, own_nodes, parameter_names
from jaxrewrite.engine.read.othermodules import attributes
from jaxrewrite.engine.read.recognise import classify
from jaxrewrite.engine.read.resolve import qualname, unquoted
from jaxrewrite.engine.read.scopes import Scope, ScopeTree
from jaxrewrite.engine.read.signature import Kind, Param
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import concrete_table
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import FAMILIES, SIGNATURE_KEEPING, SpecKind, Transform
from jaxrewrite.engine.walk import specs
from jaxrewrite.errors import RewriteError

if TYPE_CHECKING:
    from jaxrewrite.engine.walk.walker import Walked

CODE = TRACED.code
#: A finding's node, JAX's error and how the body needs the value (``traced_body.Sink``).
Said = tuple[ast.AST, str, str]

#: What a finding on a value jit stages from Python values says to do.
_STAGED_FIX = (
    "compute it with Python or NumPy, not jnp/lax (under the transform they return tracers even "
    "of Python numbers), or inside jax.ensure_compile_time_eval()"
)


#: Every transform use, marked or not, with the text searches that only skip work that cannot
#: matter.
TRACE = Filters(marker_names=False, first_arguments=True)

#: Text every module with a use of an ``abstract`` row contains (a cheap superset): their names.
_ABSTRACT = [row for rows in FAMILIES.values() for row in rows.values() if row.abstract]
_NEEDLES = tuple(sorted({row.name.rpartition(".")[2] for row in _ABSTRACT}))


#: What follows a needle that names no transform: a "." (``pjit.jit_p``) or ``import`` (``from
#: jax._src.pjit import reshard``).
_NOT_A_REFERENCE = re.compile(r"\s*\.|[ \t]+import\b")


def may_trace(text: str) -> bool:
    """Cheap pre-filter: False means ``findings.trace_findings`` finds nothing in ``text``: a use
    names its transform in code, not only in a word, a docstring, a comment or a module path."""
    return any(needle in text for needle in _NEEDLES) and code_mentions(
        text, _NEEDLES, _NOT_A_REFERENCE
    )


def may_trace_bytes(data: bytes) -> bool:
    return any(needle.encode() in data for needle in _NEEDLES)


def PASS(result: Analysis, scopes: ScopeTree, tree: ast.Module, walk: Walked) -> None:
    """The trace-time analysis as a pass of ``analyze``: JR006 findings, and the parameters whose
    finding making them static fixes (``must_be_static``; not a field of a pytree argument)."""
    src, defs = result.source, {id(func): scope for func, scope in scopes.defs}
    # Each traced parameter, with the first use that traces it and what the visible calls pass.
    by_def: dict[Function, dict[str, tuple[Param, Use, tuple[Passed, ...]]]] = {}
    staging: dict[int, Use] = {}  # the first use of jit and kin, which stage calls
    sites: Sites | None = None
    for use in result.uses:
        func, transform = use.target, use.transform
        traced = _traced_params(use, defs.get(id(func)), src)
        if traced is None:
            continue
        sites = sites or Sites(tree, scopes.module)
        decorated = use.kind is UseKind.DECORATOR
        axes = transform.spec is SpecKind.AXES
        passed = {} if axes else sites.passed(use.node, func, decorated, defs[id(func)])
        if transform.abstract and not axes:
            staging.setdefault(id(func), use)
        seen = by_def.setdefault(func, {})
        for p in traced:
            seen.setdefault(p.name, (p, use, tuple(passed.get(p.name, ()))))
    marker_fix = "jaxrewrite" in src.text and uses_jaxrewrite(tree, result.header.enabled)
    for func, by_name in by_def.items():
        assert sites is not None
        body = Body(func, defs)
        # The traced parameters surely arrays (by what visible calls pass, or their annotation).
        arrays = {
            p.name
            for p, _, given in by_name.values()
            if p.name not in body.stored
            and (
                (given and all(what is None for _, what in given))
                or scalar_or_array(unquoted(p.node.annotation), body.scope)
            )
        }
        located: set[tuple[int, int]] = set()
        for p, use, given in by_name.values():
            plain = frozenset(arrays - {p.name})
            for d, fixable in _param_findings(body, p, use, given, sites, src, marker_fix, plain):
                located.add((d.line, d.col))
                result.diagnostics.append(d)
                if fixable:
                    result.must_be_static.append((func, p.name))
        if id(func) in staging:
            result.diagnostics.extend(_staged_findings(body, staging[id(func)], src, located))
    result.diagnostics.extend(library_findings(tree, scopes, src))


def uses_jaxrewrite(module: ast.Module, enabled: bool) -> bool:
    """Does the module use jaxrewrite (its pragma, or an import of it)? Then the fix is a marker."""
    body = module.body
    names = [n.module or "" for n in body if isinstance(n, ast.ImportFrom) and n.level == 0]
    names += [a.name for n in body if isinstance(n, ast.Import) for a in n.names]
    return enabled or any(name.split(".")[0] == "jaxrewrite" for name in names)


def _param_findings(
    body: Body,
    p: Param,
    use: Use,
    given: tuple[Passed, ...],
    sites: Sites,
    src: Source,
    marker_fix: bool,
    plain: frozenset[str],
) -> Iterator[tuple[Diagnostic, bool]]:
    """Each finding on a parameter ``use`` traces (``given``: what the visible calls pass it),
    with whether making the parameter static fixes it (not a field of a traced pytree)."""
    func, args = body.func, body.func.args
    if p.kind is Kind.KEYWORD_ONLY:
        default = args.kw_defaults[args.kwonlyargs.index(p.node)] is not None
    else:
        positional = [*args.posonlyargs, *args.args]
        default = positional.index(p.node) >= len(positional) - len(args.defaults)

    def say(sink: Said, fix: str = "") -> Diagnostic:
        fix = fix or fix_text(p, use.transform, marker_fix)
        passed = " (when a call passes it)" if default else ""
        return report(src, use.node, use.transform.name, sink, p.name, fix, passed)

    what, state = param_reading(func, body.scope, src, p, sites)
    if what is not None:
        how = f"{func.name!r} takes {what} as {p.name!r}"
        yield say((p.node.annotation or p.node, NOT_JAX, how)), True
        return
    for expr, passed in given:
        if passed is not None:
            how = f"a call (line {expr.lineno}) passes {passed} as {p.name!r}"
            yield say((expr, NOT_JAX, how)), True
            return
    if not use.transform.abstract:
        return  # differentiated: its tracers are concrete, so only an untraceable type fails
    numbers = any(passed is None for _, passed in given)
    if default and not numbers:
        return  # a default is a Python value, and no call in view passes the parameter
    seed = ARRAY if numbers else state
    if seed is None and unquoted(p.node.annotation) is not None:
        return  # a container or another type: its structure may be all the body needs
    flow = body.flow({p.name: seed or TREE}, plain)
    seen: set[tuple[int, int]] = set()
    for sink in body.uses(flow):
        where = sink[0]
        if (where.lineno, where.col_offset) in seen:
            continue
        seen.add((where.lineno, where.col_offset))
        if isinstance(seed, Tree):
            yield say(sink, field_fix(where, flow, seed, marker_fix)), False
        else:
            yield say(sink), True


def _staged_findings(
    body: Body, use: Use, src: Source, seen: set[tuple[int, int]]
) -> Iterator[Diagnostic]:
    """JR006 on a value jit stages from Python values (``jnp.minimum(n, m)`` before
    ``jnp.arange``): under jit every jnp/lax call is a tracer. A location in ``seen`` (a
    parameter's finding) is left to it."""
    flow = body.flow({}, staged=True)
    for sink in body.uses(flow):
        names = (n.id for n in ast.walk(sink[0]) if isinstance(n, ast.Name))
        name = next((n for n in names if flow.names.get(n) == ARRAY), "a jnp value")
        diagnostic = report(src, use.node, use.transform.name, sink, name, _STAGED_FIX)
        if (diagnostic.line, diagnostic.col) not in seen:
            seen.add((diagnostic.line, diagnostic.col))
            yield diagnostic


def _traced_params(use: Use, scope: Scope | None, src: Source) -> list[Param] | None:
    """The parameters a use of an abstract or differentiating transform on a def of the module
    traces; None where nothing is said: a decorator it cannot name hides the def's own signature,
    or its spec cannot be read (grad and its kin: read in the default form only)."""
    func, t, params = use.target, use.transform, use.signature.params
    if scope is None or not (t.abstract or t.spec is SpecKind.DIFF):
        return None
    decorators, ids = func.decorator_list, [id(d) for d in func.decorator_list]
    below = decorators[ids.index(id(use.node)) + 1 :] if id(use.node) in ids else decorators
    if any(
        classify(d, scope) is None and qualname(d, scope) not in SIGNATURE_KEEPING for d in below
    ):
        return None
    if not t.abstract:
        if any(kw.arg == t.argnums or kw.arg is None for kw in use.written):
            return None
        return [p for p in params if p.position == 0 and p.kind is not Kind.VAR_POSITIONAL] or None
    try:
        meaning = specs.read(use, use.signature, src).meaning
    except (Refused, RewriteError):
        return None
    nums = meaning.get(t.argnums, frozenset())
    names = meaning.get(t.argnames, frozenset()) if t.argnames else frozenset()
    return [
        p
        for p in params
        if p.kind not in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)
        and not (p.markers & t.markers)
        and p.position not in nums
        and p.name not in names
    ]


def field_fix(where: ast.expr, flow: Flow, tree: Tree, uses_jaxrewrite: bool) -> str:
    """The fix of a finding on a traced pytree argument: its field made static in the class."""
    fields = sorted(
        {
            ast.unparse(a)
            for a in ast.walk(where)
            if (
                isinstance(a, ast.Subscript)
                or (isinstance(a, ast.Attribute) and a.attr in dict(tree.fields))
            )
            and isinstance(flow.state(a.value), Tree)
        }
    )
    what = "its parts are fields"
    if fields:
        what = f"{' and '.join(fields)} {'are fields' if len(fields) > 1 else 'is a field'}"
    if uses_jaxrewrite:
        how = f"annotate the field Static[...] in {tree.name}"
    elif tree.static:
        how = f"declare the field with {tree.static}"
    else:
        how = "pass the value as an argument of its own, static for the transform"
    return f"{what} of {tree.name} that JAX traces: {how}"


def fix_text(p: Param, t: Transform, uses_jaxrewrite: bool) -> str:
    if uses_jaxrewrite:
        return f"annotate it '{p.name}: Static[...]' (jaxrewrite check --fix does)"
    if t.spec is SpecKind.AXES:
        return f"map it with None in {t.argnums}, or make it static for an enclosing jit"
    if t.argnames is not None and p.kind in (Kind.POSITIONAL_OR_KEYWORD, Kind.KEYWORD_ONLY):
        return f"pass {t.argnames}=({p.name!r},) to {t.name}"
    if p.position is not None:
        return f"pass {t.argnums}=({p.position},) to {t.name}"
    return f"make it static for {t.name}"


def report(
    src: Source, use: ast.expr, transform: str, sink: Said, name: str, fix: str, passed: str = ""
) -> Diagnostic:
    """JR006 at a sink, on ``name`` as traced by the use of ``transform`` at ``use``."""
    node, error, how = sink
    fields = {"name": name, "transform": transform, "how": how, "error": error, "fix": fix}
    line, col = use.lineno, use.col_offset + 1
    return Diagnostic.at(src, node, TRACED, line=line, col=col, passed=passed, **fields)


#: JAX's own rows that trace every argument not named static (or mapped, for vmap).
_TRACING = tuple(row for row in FAMILIES["jax"].values() if row.abstract)
_ERROR = "a trace-time error (ConcretizationTypeError or the like)"
_NAMES = "|".join(sorted({re.escape(t.name.rpartition(".")[2]) for t in _TRACING}))


@cache
def _needle() -> re.Pattern[str]:
    """The text such a use holds: one of those transforms called on a table function's name."""
    functions = sorted({re.escape(f.rpartition(".")[2]) for f in concrete_table.by_function()})
    return re.compile(rf"\b(?:{_NAMES})\(\s*(?:[\w.]+\.)?(?:{'|'.join(functions)})\s*[,)]")


def library_findings(module: ast.Module, scopes: ScopeTree, src: Source) -> Iterator[Diagnostic]:
    """Each library parameter that needs a Python value and that a visible call passes traced."""
    text = src.text
    lines = {text.count("\n", 0, m.start()) + 1 for m in _needle().finditer(text)}
    if not lines:
        return
    bodies: list[tuple[list[ast.stmt], Scope, set[str]]] = [
        ([s for s in module.body if _spans(s, lines)], scopes.module, set())
    ]
    bodies += [
        (func.body, scope, bindings(func.body)[0] | set(parameter_names(func.args)))
        for func, scope in scopes.defs
        if _spans(func, lines)
    ]
    for nodes, scope, local in bodies:
        own = list(own_nodes(nodes))
        assigned = Counter(
            n.id for n in own if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        )
        jitted = {
            pair[0]: pair[1]
            for node in own
            if isinstance(node, ast.Assign)
            and (pair := name_assigned(node)) is not None
            and isinstance(pair[1], ast.Call)
        }
        for node in own:
            if not isinstance(node, ast.Call):
                continue
            inner = node.func
            if isinstance(inner, ast.Name) and assigned.get(inner.id) == 1 and inner.id in jitted:
                inner = jitted[inner.id]
            if isinstance(inner, ast.Call):
                yield from _library_call(node, inner, scope, local, src)


def _spans(node: ast.stmt, lines: set[int]) -> bool:
    last = node.end_lineno or node.lineno
    return any(node.lineno <= line <= last for line in lines)


def _library_call(
    call: ast.Call, use: ast.Call, scope: Scope, local: set[str], src: Source
) -> Iterator[Diagnostic]:
    # The transform and the function each a name the body does not bind: the module's binding.
    heads = [attributes(expr)[0] for expr in (use.func, *use.args)]
    if len(use.args) != 1 or any(head is None or head in local for head in heads):
        return
    ref = classify(use.func, scope)
    if ref is None or ref.transform not in _TRACING or ref.keywords or ref.factory:
        return
    library, t = qualname(use.args[0], scope) or "", ref.transform
    statics = _statics(use, t)
    if statics is None or any(isinstance(a, ast.Starred) for a in call.args):
        return
    for arg, keyword, position in concrete_arguments(call, library):
        if position in statics[0] or keyword in statics[1]:
            continue
        if isinstance(arg, ast.Constant) and arg.value is None:
            continue  # no leaf to trace
        if t.spec is SpecKind.AXES:
            fix = f"map it with None in {t.argnums} of"
        elif t.argnames:
            fix = f"pass {t.argnames}=({keyword!r},) to"
        else:
            fix = f"pass {t.argnums}=({position},) to"
        how = f"{library.rpartition('.')[2]}() needs its {keyword!r} as a Python value"
        yield report(src, use, t.name, (arg, _ERROR, how), keyword, f"{fix} {t.name}")


def _statics(use: ast.Call, t: Transform) -> tuple[set[int], set[str]] | None:
    """The positions and names the transform's literal keywords make static (None: unread)."""
    nums: set[int] = set()
    names: set[str] = set()
    if t.spec is SpecKind.AXES:  # vmap maps every argument but those its in_axes says None of
        if any(kw.arg is None for kw in use.keywords):
            return None
        axes = next((kw.value for kw in use.keywords if kw.arg == t.argnums), ast.Constant(0))
        try:
            value = ast.literal_eval(axes)
        except ValueError:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            return nums, names
        if isinstance(value, (tuple, list)) and all(v is None or isinstance(v, int) for v in value):
            return {i for i, v in enumerate(value) if v is None}, names
        return None
    for kw in use.keywords:
        if kw.arg not in (t.argnums, t.argnames):
            if kw.arg is None or kw.arg.startswith("static_"):
                return None
            continue
        try:
            value = ast.literal_eval(kw.value)
        except ValueError:
            return None
        values = value if isinstance(value, (tuple, list)) else (value,)
        if kw.arg == t.argnums and all(isinstance(v, int) for v in values):
            nums.update(values)
        elif kw.arg == t.argnames and all(isinstance(v, str) for v in values):
            names.update(values)
        else:
            return None
    return nums, names
