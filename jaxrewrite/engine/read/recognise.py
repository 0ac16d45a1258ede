"""Recognising JAX transforms in expressions: plain, ``partial``, factory and alias forms; and
what only looks like one the table lacks (``table.TRANSFORM_LIKE``, JR004/JR007)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from jaxrewrite.engine.read.denote import CALLED, Path, paths, same_expr, split
from jaxrewrite.engine.read.resolve import CUT, MAX_DEPTH, qualname, qualname_or_cut
from jaxrewrite.engine.read.scopes import Assigned, Imported, Scope
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import (
    DECORATOR_LIKE,
    TRANSFORM_LIKE,
    ClassTransform,
    Transform,
    canonical,
    class_transform_for,
    transform_for,
)


@dataclass(frozen=True)
class TransformRef:
    """An expression that evaluates to (a partial application of) a JAX transform."""

    transform: Transform
    #: Keywords already bound to the transform, innermost first (later ones override).
    keywords: tuple[ast.keyword, ...]
    #: The expression is a call that *returns* a decorator (``jax.jit(static_argnames=...)``):
    #: what it returns takes only the function, so no keyword can be added after it.
    factory: bool = False


def classify(expr: ast.expr, scope: Scope) -> TransformRef | None:
    """Does ``expr`` denote a JAX transform, possibly through partial, factory or alias forms,
    on every path its names may be bound (``denote``), with the same static semantics?"""
    return classify_cut(expr, scope)[0]


def classify_cut(expr: ast.expr, scope: Scope) -> tuple[TransformRef | None, bool]:
    """``classify``, and whether its reading reached ``MAX_DEPTH``: a None that way may be a
    transform missed, which would leave a marked def untransformed."""
    reading = _Reading()
    return reading.classify(expr, scope, 0), reading.cut


class _Reading(
    dict[tuple[int, int, int, int], tuple[TransformRef | None, "tuple[Path, Path] | None"]]
):
    """What ``read`` found by (node, scope, levels): a name bound many ways is read once per
    alias and level (``f = f`` twice is 2**32 readings otherwise); ``cut``: one reached the cut.
    ``depth`` counts the calls and aliases of calls read (a ``partial`` link is two), ``hops``
    the names read since (qualname's own depth): each has ``MAX_DEPTH`` levels."""

    cut = False

    def name(
        self, expr: ast.expr, scope: Scope, hops: int = 0, use: str | None = None
    ) -> str | None:
        """``qualname``, noting a read that reached the cut."""
        found = qualname_or_cut(expr, scope, hops, use=use)
        self.cut = self.cut or found == CUT
        return found or None

    def classify(
        self, expr: ast.expr, scope: Scope, depth: int, hops: int = 0
    ) -> TransformRef | None:
        if depth > MAX_DEPTH:
            self.cut = True
            return None
        if isinstance(expr, (ast.Name, ast.Attribute)):
            name = self.name(expr, scope, hops, CALLED)
            if name is None:  # its paths name different things, or not only names: read each
                return self.read(expr, scope, depth, hops)[0]
            transform = transform_for(name)
            return None if transform is None else TransformRef(transform, ())
        if isinstance(expr, ast.Call):
            partial = self.name(expr.func, scope) == "functools.partial"
            if partial and (len(expr.args) != 1 or isinstance(expr.args[0], ast.Starred)):
                return None
            if partial or not expr.args:  # ``partial(jax.jit, ...)``, or ``jax.jit(...)``
                inner = self.classify(expr.args[0] if partial else expr.func, scope, depth + 1)
                if inner is not None and not inner.factory:
                    keywords = inner.keywords + tuple(expr.keywords)
                    return TransformRef(inner.transform, keywords, factory=not partial)
        return None

    def read(
        self, expr: ast.Name | ast.Attribute, scope: Scope, depth: int, hops: int = 0
    ) -> tuple[TransformRef | None, tuple[Path, Path] | None]:
        """What a name (or ``name.attr...``) applies read path by path: the transform every path
        agrees on, or None and, where two paths disagree on the statics, those two."""
        key = (id(expr), id(scope), depth, hops)
        if key in self:
            return self[key]
        self[key] = None, None  # round a loop of aliases: no transform that way
        suffix, use = "", CALLED
        root: ast.expr = expr
        while isinstance(root, ast.Attribute):  # each attribute a level, as qualname counts them
            suffix, use, root, hops = f".{root.attr}{suffix}", root.attr, root.value, hops + 1
        if not isinstance(root, ast.Name) or hops > MAX_DEPTH:
            return None, None
        found = paths(root.id, scope, use)
        readings = [(self.path(path, suffix, depth, hops), path) for path in found or ()]
        refs = [ref for ref, _ in readings if ref is not None]
        pair = split(readings, same_statics) if refs else None
        if not refs or pair is not None:
            answer: tuple[TransformRef | None, tuple[Path, Path] | None] = None, pair
        else:  # pjit takes more positional parameters than jit: only those both take are read
            answer = min(refs, key=lambda ref: len(ref.transform.positional)), None
        self[key] = answer
        return answer

    def path(self, path: Path, suffix: str, depth: int, hops: int) -> TransformRef | None:
        """What the name + ``suffix`` applies where the name is bound as ``path`` says."""
        binding = path.binding
        if isinstance(binding, Imported):
            name: str | None = canonical(binding.qualname)
        elif isinstance(binding, Assigned) and isinstance(binding.value, (ast.Name, ast.Attribute)):
            if not suffix:  # an alias of a name: one more name read
                return self.classify(binding.value, binding.scope, depth, hops + 1)
            name = self.name(binding.value, binding.scope, hops + 1)
        elif isinstance(binding, Assigned) and not suffix:  # an alias of a call: one more call
            return self.classify(binding.value, binding.scope, depth + 1)
        else:
            return None
        transform = None if name is None else transform_for(canonical(name + suffix))
        return None if transform is None else TransformRef(transform, ())


def same_statics(a: TransformRef | None, b: TransformRef | None) -> bool:
    """Do two readings of a name make the same parameters static the same way (jit and pjit
    alike, the same bound keywords, both or neither a factory's result)?"""
    if a is None or b is None:
        return a is b
    short, long = sorted((a.transform.positional, b.transform.positional), key=len)
    return (
        long[: len(short)] == short
        and replace(a.transform, name="", positional=())
        == replace(b.transform, name="", positional=())
        and a.factory == b.factory
        and same_expr(a.keywords, b.keywords)
    )


def bound_keywords(
    call: ast.Call, positional: tuple[str, ...], what: str, src: Source
) -> tuple[ast.keyword, ...]:
    """The arguments after the first of ``call`` as the keywords they bind (``jax.vmap(f, (0,
    None))`` says ``in_axes=(0, None)``), so each is completed in place, never passed twice."""
    extra = call.args[1:]
    for arg in extra:
        if isinstance(arg, ast.Starred):
            raise rules.UNPACKED.error(
                src, arg, "starred", transform=what, sequence=ast.unparse(arg.value)
            )
    if len(extra) > len(positional):
        count, s = len(positional), "s" if len(positional) != 1 else ""
        raise rules.TOO_MANY_POSITIONAL.error(
            src, extra[count], transform=what, count=count, s=s, given=len(extra)
        )
    named = (ast.copy_location(ast.keyword(n, v), v) for n, v in zip(positional, extra))
    return (*named, *call.keywords)


def ambiguous(expr: ast.expr, scope: Scope) -> tuple[Path, Path] | None:
    """Two bindings of ``expr``'s name that disagree on the transform it applies, where one does:
    ``classify``'s None there would silently drop a marked def's statics (JR104 instead)."""
    if isinstance(expr, ast.Call):
        partial = qualname(expr.func, scope) == "functools.partial" and expr.args
        expr = expr.args[0] if partial else expr.func
    if not isinstance(expr, (ast.Name, ast.Attribute)):
        return None
    return _Reading().read(expr, scope, 0)[1]


def classify_registration(
    expr: ast.expr, scope: Scope
) -> tuple[ClassTransform, tuple[ast.keyword, ...]] | None:
    """``jax.tree_util.register_dataclass`` itself, or ``partial(...)`` of it."""
    if isinstance(expr, (ast.Name, ast.Attribute)):
        found = class_transform_for(qualname(expr, scope) or "")
        return None if found is None else (found, ())
    if (
        isinstance(expr, ast.Call)
        and qualname(expr.func, scope) == "functools.partial"
        and len(expr.args) == 1
    ):
        inner = classify_registration(expr.args[0], scope)
        return None if inner is None else (inner[0], inner[1] + tuple(expr.keywords))
    return None


#: A decorator's or callee's last name that says "transform" (``table.TRANSFORM_LIKE``), and
#: also those that say it as a decorator only (``table.DECORATOR_LIKE``).
_TRANSFORM_LIKE = re.compile("|".join(TRANSFORM_LIKE), re.IGNORECASE)
_DECORATOR_LIKE = re.compile("|".join((*TRANSFORM_LIKE, *DECORATOR_LIKE)), re.IGNORECASE)


def looks_like_transform(expr: ast.expr, decorator: bool = False) -> bool:
    """A decorator or callee whose own name says "transform" (``partial(f, ...)`` looks at
    ``f``); ``decorator``: also a name that says it only where it decorates a def."""
    while isinstance(expr, ast.Call):  # to any depth: the expression's own nesting ends it
        partial = _last_name(expr.func) == "partial"
        expr = expr.args[0] if expr.args and partial else expr.func
    return bool((_DECORATOR_LIKE if decorator else _TRANSFORM_LIKE).search(_last_name(expr)))


def _last_name(expr: ast.expr) -> str:
    return expr.attr if isinstance(expr, ast.Attribute) else getattr(expr, "id", "")
