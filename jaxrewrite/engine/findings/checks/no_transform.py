"""JR002; where a method of its class is given a transform through ``self`` (``jax.jit(self.f)``),
the finding names that call and the keywords to write there."""

from __future__ import annotations

import ast

from jaxrewrite.engine.analysis import Function, Use, UseKind, needs_edit
from jaxrewrite.engine.edits import render
from jaxrewrite.engine.findings.call_arguments import BOUND, method_kind
from jaxrewrite.engine.findings.checks.unknown_transform import spell
from jaxrewrite.engine.findings.context import Context
from jaxrewrite.engine.read.nodes import walk as walk_nodes
from jaxrewrite.engine.read.recognise import TransformRef, bound_keywords, classify
from jaxrewrite.engine.read.signature import Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import Rule
from jaxrewrite.engine.walk import specs
from jaxrewrite.errors import RewriteError

RULE = Rule(
    "JR002",
    "Static/NoDiff on a function that no transform of the module applies to",
    (
        "{spelled} of {func!r} does nothing: no transform in this module applies to {func!r}, as "
        "a decorator or as a call site; mark the parameters of the function the transform is "
        "applied to"
    ),
    "apply a transform to the def, or mark the parameters of the function it is applied to",
    bound="{spelled} of {func!r} does nothing: {call} (line {line}) applies {transform} "
    "to the method {bound!r}, and jaxrewrite writes keywords only where a transform is "
    "applied to a def by its name (a subclass may override a method); decorate the def, "
    "or write the keywords there ({shift}): {keywords}",
    details=", as a decorator or as a call site",
    at_import=True,
)


def check(ctx: Context) -> list[Diagnostic]:
    unapplied = [
        d for d in ctx.marked_defs if not d.applied and not d.refused and d.unknown is None
    ]
    if not unapplied:
        return []
    bound = _bound_methods(ctx, {id(d.node) for d in ctx.marked_defs if not d.applied})
    found = []
    for record in unapplied:
        fields = bound.get(id(record.node))
        if fields is None and record.overload:
            continue  # a transform applies to the implementation after an @overload stub
        said = {"func": record.node.name, **(fields or {}), "spelled": spell(list(record.marked))}
        variant = "" if fields is None else "bound"
        found.append(Diagnostic.at(ctx.src, record.marked[0].node, RULE, variant, **said))
    return found


def _bound_methods(ctx: Context, wanted: set[int]) -> dict[int, dict[str, str]]:
    """For marked methods no transform applies to by name, the first transform call in a method
    of their class given one through ``self``/``cls`` (``self.fast = jax.jit(self.step)``), as
    JR002's fields, with the keywords that call needs: JAX reads the bound method's signature,
    whose positions do not count ``self`` (a staticmethod's count all, a classmethod's not
    ``cls``)."""
    scopes = {id(func): scope for func, scope in ctx.scopes.defs}
    found: dict[int, dict[str, str]] = {}
    for cls, _ in ctx.scopes.classes:
        methods = [m for m in cls.node.body if isinstance(m, Function) and id(m) in scopes]
        marked = {m.name: m for m in methods if id(m) in wanted}
        for caller in methods if marked else ():
            kind = method_kind(caller, scopes[id(caller)])
            first = [*caller.args.posonlyargs, *caller.args.args][:1]
            calls = [n for n in walk_nodes(caller) if isinstance(n, ast.Call) and n.args]
            for call in calls if kind != "static" and first else ():
                arg = call.args[0]
                if not (isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name)):
                    continue
                target = marked.get(arg.attr)
                if target is None or id(target) in found or arg.value.id != first[0].arg:
                    continue
                ref = classify(call.func, scopes[id(caller)])
                if ref is None:
                    continue
                receiver = "instance" if kind == "instance" else "class"
                shift = BOUND[method_kind(target, scopes[id(target)])][receiver]
                dropped = [*target.args.posonlyargs, *target.args.args][:1]
                counted = f"positions counted without {dropped[0].arg!r}" if shift else ""
                sig = ctx.walk.signatures[id(target)][0]
                params = tuple(
                    p if p.position is None else p._replace(position=p.position - shift)
                    for p in sig.params
                    if p.position is None or p.position >= shift
                )
                sig = sig._replace(params=params, n_positional=sig.n_positional - shift)
                try:
                    keywords = needed_keywords(call, ref, target, sig, ctx.src)
                except RewriteError as err:
                    keywords = f"none can be merged there ({err.message})"
                found[id(target)] = {
                    "call": ast.unparse(call),
                    "line": str(call.lineno),
                    "transform": ref.transform.name,
                    "bound": ast.unparse(arg),
                    "shift": counted or "positions as in the def",
                    "keywords": keywords
                    or f"none: {ref.transform.name} makes nothing static for its marked parameters",
                }
    return found


def needed_keywords(
    call: ast.Call, ref: TransformRef, func: Function, sig: Signature, src: Source
) -> str | None:
    """The keywords a transform call of ``func`` (read as ``sig``) needs, as the walk would
    complete them; None where it needs none, RewriteError where the walk would refuse it."""
    t = ref.transform
    written = ref.keywords + bound_keywords(call, t.positional, t.name, src)
    use = Use(UseKind.CALL, call, t, func, sig, (), written, (), None, ref.factory)
    values = specs.complete(use, src)
    if not needs_edit(values):
        return None
    return render.keywords(tuple((k, v) for k, v, node in values or () if node is None))
