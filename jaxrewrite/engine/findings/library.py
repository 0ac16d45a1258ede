"""JR006 on a library function handed to a transform directly (``jax.jit(jnp.linalg.norm)(x,
ord=o)``, ``g = jax.jit(jax.ops.segment_sum)`` then ``g(d, ids, num_segments=n)``).

No def is in view, so the body is the library's: the derived table (``concrete_table``) says which
of its parameters need Python values, and the transform traces every argument it is not told is
static. Said only where all is read: the transform's static keywords are literals, the call passes
the parameter itself (no ``*args``/``**kwargs`` that could carry it), not a literal None (no leaf),
and no keyword that lets the parameter be traced after all (``total_repeat_length``).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator
from functools import cache

from jaxrewrite.engine.findings.static_fix import report
from jaxrewrite.engine.read.nodes import bindings, own_nodes, parameter_names
from jaxrewrite.engine.read.recognise import classify
from jaxrewrite.engine.read.resolve import qualname
from jaxrewrite.engine.read.scopes import Scope, ScopeTree
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import concrete_table
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import FAMILIES, SpecKind, Transform

#: The transforms that trace every argument not named static (or mapped, for vmap): JAX's
#: own rows that trace abstractly (jit, make_jaxpr, vmap, checkpoint, pmap), no lifted ones.
_TRACING = tuple(row for row in FAMILIES["jax"].values() if row.abstract)
_ERROR = "a trace-time error (ConcretizationTypeError or the like)"
#: Their names, as the text of a use spells the transform (the last part of a reference).
_NAMES = "|".join(sorted({re.escape(t.name.rpartition(".")[2]) for t in _TRACING}))


@cache
def _needle() -> re.Pattern[str]:
    """The text such a use holds: one of those transforms called on a table function's name."""
    functions = sorted({re.escape(f.rpartition(".")[2]) for f in concrete_table.by_function()})
    return re.compile(rf"\b(?:{_NAMES})\(\s*(?:[\w.]+\.)?(?:{'|'.join(functions)})\s*[,)]")


def findings(module: ast.Module, scopes: ScopeTree, src: Source) -> Iterator[Diagnostic]:
    """Each library parameter that needs a Python value and that a visible call passes traced."""
    text = src.text
    lines = {text.count("\n", 0, m.start()) + 1 for m in _needle().finditer(text)}
    if not lines:
        return
    top = [s for s in module.body if _spans(s, lines)]
    bodies: list[tuple[list[ast.AST], Scope, set[str]]] = [(list(top), scopes.module, set())]
    for func, scope in scopes.defs:
        if _spans(func, lines):
            local = bindings(func.body)[0] | set(parameter_names(func.args))
            bodies.append((list(func.body), scope, local))
    for nodes, scope, local in bodies:
        own = list(own_nodes(nodes))
        assigned = Counter(
            n.id for n in own if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        )
        jitted: dict[str, ast.Call] = {}
        for node in own:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)
            ):
                jitted[node.targets[0].id] = node.value
        for node in own:
            if not isinstance(node, ast.Call):
                continue
            inner = node.func
            if isinstance(inner, ast.Name) and assigned.get(inner.id) == 1 and inner.id in jitted:
                inner = jitted[inner.id]
            if isinstance(inner, ast.Call):
                yield from _call(node, inner, scope, local, src)


def _spans(node: ast.stmt, lines: set[int]) -> bool:
    last = node.end_lineno or node.lineno
    return any(node.lineno <= line <= last for line in lines)


def _call(
    call: ast.Call, use: ast.Call, scope: Scope, local: set[str], src: Source
) -> Iterator[Diagnostic]:
    if len(use.args) != 1 or not _free(use.func, local) or not _free(use.args[0], local):
        return
    ref = classify(use.func, scope)
    if ref is None or ref.transform not in _TRACING or ref.keywords or ref.factory:
        return
    library = qualname(use.args[0], scope) or ""
    rows = concrete_table.by_function().get(library)
    statics = _statics(use, ref.transform)
    if not rows or statics is None or any(isinstance(a, ast.Starred) for a in call.args):
        return
    nums, names = statics
    passes = {kw.arg for kw in call.keywords}
    if None in passes:
        return
    lifting = concrete_table.lifting()
    for position, keyword in rows:
        if (
            position in nums
            or keyword in names
            or passes & set(lifting.get((library, keyword), ()))
        ):
            continue
        given = [kw.value for kw in call.keywords if kw.arg == keyword]
        if position is not None and position < len(call.args):
            given.append(call.args[position])
        for arg in given:
            if isinstance(arg, ast.Constant) and arg.value is None:
                continue
            short = library.rpartition(".")[2]
            t = ref.transform
            if t.spec is SpecKind.AXES:
                fix = f"map it with None in {t.argnums} of"
            elif t.argnames:
                fix = f"pass {t.argnames}=({keyword!r},) to"
            else:
                fix = f"pass {t.argnums}=({position},) to"
            how = f"{short}() needs its {keyword!r} as a Python value"
            yield report(src, arg, use, keyword, t.name, how, _ERROR, f"{fix} {t.name}")


def _statics(use: ast.Call, t: Transform) -> tuple[set[int], set[str]] | None:
    """The positions and names the transform's literal keywords make static; None: unreadable."""
    nums: set[int] = set()
    names: set[str] = set()
    if t.spec is SpecKind.AXES:  # vmap maps every argument but those its in_axes says None of
        axes = [kw.value for kw in use.keywords if kw.arg == t.argnums]
        if any(kw.arg is None for kw in use.keywords):
            return None
        try:
            value = ast.literal_eval(axes[0]) if axes else 0
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


def _free(expr: ast.expr, local: set[str]) -> bool:
    """Is the head of ``expr`` a name the body does not bind (so the module's binding is it)?"""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name) and expr.id not in local
