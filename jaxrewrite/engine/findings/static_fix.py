"""A JR006 finding as said: the fix it names (the parameter made static, by a marker where the
module uses jaxrewrite, else by the transform's keyword; or the field of a traced pytree)."""

from __future__ import annotations

import ast

from jaxrewrite.engine.findings.checks.traced_argument import RULE as TRACED
from jaxrewrite.engine.findings.flow import Flow, Function, Tree
from jaxrewrite.engine.read.signature import Kind, Param
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import SpecKind, Transform


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


def has_default(func: Function, p: Param) -> bool:
    args = func.args
    if p.kind is Kind.KEYWORD_ONLY:
        return args.kw_defaults[args.kwonlyargs.index(p.node)] is not None
    positional = [*args.posonlyargs, *args.args]
    return positional.index(p.node) >= len(positional) - len(args.defaults)


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
    src: Source,
    node: ast.AST,
    use: ast.expr,
    name: str,
    transform: str,
    how: str,
    error: str,
    fix: str,
    passed: str = "",
) -> Diagnostic:
    """JR006 at ``node``, on ``name`` as traced by the use of ``transform`` at ``use``."""
    line, col = use.lineno, use.col_offset + 1
    return Diagnostic.at(
        src,
        node,
        TRACED,
        name=name,
        transform=transform,
        line=line,
        col=col,
        how=how,
        error=error,
        passed=passed,
        fix=fix,
    )
