"""JR015: no rule that reads markers sees an unbound one. A name bound anywhere in the module counts
as bound: this rule only says what is certainly missing."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from jaxrewrite.engine.findings.checks import traced_argument
from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import CHECK, Rule

RULE = Rule(
    "JR015",
    "Static or NoDiff used in an annotation but never imported or defined",
    (
        "{name!r} in the annotation of {param!r} is not imported: Python raises NameError where "
        "the def runs (or, under 'from __future__ import annotations', the marker is never read, "
        "so it does nothing); add 'from jaxrewrite import {name}'"
    ),
    "add 'from jaxrewrite import Static' (or NoDiff) to the module's imports (check --fix does)",
    CHECK,
    details=(
        ": Python raises `NameError` where the def runs; `check --fix` adds `from jaxrewrite "
        "import ...`"
    ),
)

Owner = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda

#: A marker at the head of an annotation, as text (a superset: strings and comments count too), so
#: that a module that only mentions the word (``Static(v)``, docstrings) is not parsed again.
_AT_HEAD = re.compile(r":(?:[\s(\\]|#[^\n]*)*(?:Static|NoDiff)\s*(?:[\[,)=;#\n]|\Z)")


def unbound_markers(tree: ast.Module) -> Iterator[tuple[ast.Name, str, Owner | None]]:
    """Each unbound marker name at the head of an annotation, with the name it annotates and
    the def whose parameter that is (None for a field)."""
    bound: set[str] = set()
    annotated: list[tuple[ast.expr, str, Owner | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            every = [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
            annotated += [
                (a.annotation, a.arg, node) for a in every if a is not None and a.annotation
            ]
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return  # a star import may bind any name
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).partition(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            annotated.append((node.annotation, node.target.id, None))
    for annotation, name, owner in annotated:
        head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
        if isinstance(head, ast.Name) and head.id in ("Static", "NoDiff") and head.id not in bound:
            yield head, name, owner


def without_shadowed(found: list[Diagnostic], tree: ast.Module) -> list[Diagnostic]:
    """``found`` less the JR006 findings on a parameter whose marker is unbound (JR015): they
    would ask for the annotation already written."""
    spans = [
        (repr(name) + " is traced", owner.lineno, owner.end_lineno or owner.lineno)
        for _, name, owner in unbound_markers(tree)
        if owner is not None
    ]
    return [
        d
        for d in found
        if d.code != traced_argument.RULE.code
        or not any(
            d.message.startswith(lead) and first <= d.line <= last for lead, first, last in spans
        )
    ]


def unbound_findings(text: str, filename: str) -> list[Diagnostic]:
    """JR015 for a module the analysis does not read (it never names jaxrewrite); SyntaxError
    if it does not parse."""
    if ("Static" not in text and "NoDiff" not in text) or not _AT_HEAD.search(text):
        return []
    return _said(Source(text, filename), ast.parse(text, filename))


def check(ctx: Context) -> list[Diagnostic]:
    return _said(ctx.src, ctx.tree)


def _said(src: Source, tree: ast.Module) -> list[Diagnostic]:
    found = unbound_markers(tree)
    return [Diagnostic.at(src, node, RULE, name=node.id, param=param) for node, param, _ in found]
