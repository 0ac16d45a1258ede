"""Findings beyond refusals: markers that would silently do nothing, for ``check`` and ``show``.

Each is a Diagnostic with a JR00n code. The import hook never computes them (they cost nothing
there); the run-time counterpart for modules that were never rewritten is NotRewrittenWarning.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from jaxrewrite.engine.diagnostics import Diagnostic
from jaxrewrite.engine.header import PRAGMA, Header, why_ignored
from jaxrewrite.engine.recognise import classify
from jaxrewrite.engine.resolve import MAX_DEPTH, qualname
from jaxrewrite.engine.scopes import Scope
from jaxrewrite.engine.signature import Param, Signature, inner_type
from jaxrewrite.engine.source import Source
from jaxrewrite.engine.table import Mark

Function = ast.FunctionDef | ast.AsyncFunctionDef

#: Types whose values JAX cannot hash, so it rejects them as static arguments at call time.
UNHASHABLE = frozenset(
    {
        "builtins.list",
        "builtins.dict",
        "builtins.set",
        "builtins.bytearray",
        "typing.List",
        "typing.Dict",
        "typing.Set",
        "typing.DefaultDict",
        "typing.OrderedDict",
        "typing.Counter",
        "typing.Deque",
        "typing.MutableMapping",
        "typing.MutableSequence",
        "typing.MutableSet",
        "collections.abc.MutableMapping",
        "collections.abc.MutableSequence",
        "collections.abc.MutableSet",
        "collections.defaultdict",
        "collections.OrderedDict",
        "collections.Counter",
        "collections.deque",
        "jax.Array",
        "jax.numpy.ndarray",
        "jax.typing.ArrayLike",
        "numpy.ndarray",
        "numpy.typing.NDArray",
    }
)
_BUILTINS = frozenset({"list", "dict", "set", "bytearray"})

#: What a decorator's last name looks like when it is a transform jaxrewrite does not know
#: (``equinox.filter_jit``, ``numba.jit``, a project's own ``my_jit``).
_TRANSFORM_LIKE = re.compile(r"jit|pmap|vmap|remat|checkpoint|grad|custom_vjp|custom_jvp|shard_map", re.IGNORECASE)


def looks_like_transform(expr: ast.expr) -> bool:
    """A decorator or callee whose own name says "transform" (``partial(f, ...)`` looks at ``f``)."""
    for _ in range(MAX_DEPTH):
        if isinstance(expr, ast.Call):
            expr = expr.args[0] if expr.args and _is_partial_name(expr.func) else expr.func
            continue
        break
    if isinstance(expr, ast.Attribute):
        name = expr.attr
    elif isinstance(expr, ast.Name):
        name = expr.id
    else:
        return False
    return bool(_TRANSFORM_LIKE.search(name))


def _is_partial_name(expr: ast.expr) -> bool:
    return (isinstance(expr, ast.Name) and expr.id == "partial") or (
        isinstance(expr, ast.Attribute) and expr.attr == "partial"
    )


def marked_defs(
    defs: Iterable[tuple[Function, Scope]],
    signatures: dict[int, Signature],
    applied: set[int],
    unknown_calls: dict[int, ast.expr],
    src: Source,
) -> list[Diagnostic]:
    """JR002, JR003 and JR004 for every def with markers."""
    found: list[Diagnostic] = []
    for func, scope in defs:
        sig = signatures.get(id(func))
        if sig is None or not sig.has_markers:
            continue
        marked = [p for p in sig.params if p.markers]
        for param in marked:
            if Mark.STATIC in param.markers:
                kind = unhashable(param, scope)
                if kind is not None:
                    found.append(
                        _at(
                            src,
                            param.node,
                            "JR003",
                            f"{param.name!r} is Static but annotated {kind}, which cannot be hashed: JAX "
                            "rejects an unhashable static argument when the function is called; use a "
                            "hashable type (a tuple, a frozenset, a scalar)",
                        )
                    )
        unknown = next((d for d in func.decorator_list if classify(d, scope) is None and looks_like_transform(d)), None)
        if unknown is None:
            unknown = unknown_calls.get(id(func))
        if unknown is not None:
            found.append(
                _at(
                    src,
                    unknown,
                    "JR004",
                    f"{_spell(marked)} of {func.name!r} do{'' if len(marked) > 1 else 'es'} nothing under "
                    f"{ast.unparse(unknown)!r}: jaxrewrite does not know it as a JAX transform, so it never "
                    "writes its static keywords; pass the static arguments to it yourself, or apply a "
                    "transform jaxrewrite knows (see the guide, section 6)",
                )
            )
        elif id(func) not in applied:
            found.append(
                _at(
                    src,
                    marked[0].node,
                    "JR002",
                    f"{_spell(marked)} of {func.name!r} does nothing: no transform in this module applies to "
                    f"{func.name!r}, as a decorator or as a call site; mark the parameters of the function "
                    "the transform is applied to",
                )
            )
    return found


def unseen_level(call: ast.Call, func: Function, src: Source) -> Diagnostic:
    """JR007: a transform applied to something made from a marked def that is not seen through."""
    return _at(
        src,
        call.args[0],
        "JR007",
        f"the Static/NoDiff parameters of {func.name!r} are not applied by {ast.unparse(call.func)!r} here: "
        f"its argument {ast.unparse(call.args[0])!r} is made from {func.name!r} by something other than "
        "the transforms jaxrewrite knows and one-argument wrappers, so which parameters it receives "
        "cannot be told; pass its static keywords yourself, or apply the transform to the def",
    )


def missing_pragma(header: Header, first: ast.AST | None, src: Source) -> Diagnostic | None:
    """JR001: the rewrite would act on this module, but its header does not opt in."""
    if header.enabled or first is None:
        return None
    why = ""
    if header.ignored_lines:
        line = header.ignored_lines[0]
        why = f" (the '{PRAGMA}' on line {line} does not count: {why_ignored(src.text, line)})"
    return _at(
        src,
        first,
        "JR001",
        f"Static/NoDiff annotations do nothing here: the module has no '{PRAGMA}' comment in its "
        f"header{why}; add it before the first statement (after the docstring and __future__ imports)",
    )


def unhashable(param: Param, scope: Scope) -> str | None:
    """The spelled type under a Static marker, when values of it cannot be hashed."""
    inner = inner_type(param.node.annotation, scope)
    if inner is None:
        return None
    head = inner.value if isinstance(inner, ast.Subscript) else inner
    name = qualname(head, scope)
    if name is None and isinstance(head, ast.Name) and head.id in _BUILTINS and scope.lookup(head.id) is None:
        name = f"builtins.{head.id}"
    return ast.unparse(inner) if name in UNHASHABLE else None


def _spell(params: list[Param]) -> str:
    names = ", ".join(repr(p.name) for p in params)
    return f"the marker{'s' if len(params) > 1 else ''} on {names}"


def _at(src: Source, node: ast.AST, code: str, message: str) -> Diagnostic:
    return Diagnostic.from_error(src.error(node, code, message))
