"""What decorators and call sites share: completing a use of a transform on a marked def
(``complete_use``, over the spec math of ``engine.walk.specs``), the refusals they both raise, and
the per-leaf comparison of two defs.
"""

from __future__ import annotations

import ast

from jaxrewrite.engine.analysis import Leaf, Use, UseKind, held_leaves, needs_edit
from jaxrewrite.engine.read.denote import Path, spelled
from jaxrewrite.engine.read.recognise import TransformRef
from jaxrewrite.engine.read.resolve import PAST_DEPTH, binding_scope, qualname
from jaxrewrite.engine.read.scopes import Scope
from jaxrewrite.engine.read.signature import Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import TRANSFORMS
from jaxrewrite.engine.walk import specs
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


def complete_use(
    kind: UseKind,
    node: ast.expr,
    ref: TransformRef,
    func: Function,
    sig: Signature,
    leaves: tuple[Leaf, ...],
    local: tuple[ast.keyword, ...],
    scope: Scope,
    src: Source,
) -> Use:
    """One use of a transform on a marked def (a decorator, or a call site ``node``), completed:
    ``ref.keywords`` is all the use writes, ``local`` what is written at ``node`` itself. The
    per-leaf refusals first (nothing can be written), then the spec math, then what the text
    written would need (the builtin ``__import__``; a factory's result takes no keywords)."""
    leaves = held_leaves(leaves, ref.transform)
    call = node if kind is UseKind.CALL and isinstance(node, ast.Call) else None
    if leaves and ref.transform.per_leaf is None:
        raise rules.LEAVES_UNSPLIT.error(
            src,
            leaves[0].param.node if call is None else call,
            param=leaves[0].param.name,
            names=per_leaf_names(),
            transform=ref.transform.name,
        )
    if leaves and ref.factory:
        if call is None:
            raise factory_error(node, ref, src)
        param, factory = leaves[0].param.name, ast.unparse(call.func)
        raise rules.LEAVES_FACTORY.error(src, call, param=param, factory=factory)
    values = specs.complete(ref, sig, src, node, bool(leaves), at_call=call is not None)
    bare = not isinstance(node, ast.Call)  # a decorator that is no call: written as one
    if leaves or (bare and needs_edit(values)):
        check_import_visible(node, scope, src)
    use = Use(
        kind, node, ref.transform, func, sig, leaves, ref.keywords, local, values, ref.factory
    )
    if use.needs_edit and ref.factory and (call is not None or bare):
        raise factory_error(node if call is None else call.func, ref, src)
    return use


def same_statics(
    a: tuple[Signature, tuple[Leaf, ...]], b: tuple[Signature, tuple[Leaf, ...]]
) -> bool:
    return a[0].statics() == b[0].statics() and [
        (*leaf.spec(), leaf.marks, leaf.inner) for leaf in a[1]
    ] == [(*leaf.spec(), leaf.marks, leaf.inner) for leaf in b[1]]


def per_leaf_names() -> str:
    """The transforms that split per-leaf entries, from the table (for JR106's message)."""
    return ", ".join(name for name, row in TRANSFORMS.items() if row.per_leaf is not None)


def is_overload(func: Function, scope: Scope) -> bool:
    """``@typing.overload`` stubs are replaced by the implementation that follows them."""
    return any(qualname(deco, scope) == "typing.overload" for deco in func.decorator_list)


def ambiguity_error(expr: ast.expr, src: Source, pair: tuple[Path, Path]) -> RewriteError:
    """JR104 at a use of a name whose bindings ``pair`` disagree on the transform it applies."""
    fields = spelled(pair, src.filename)
    return rules.TRANSFORM_BOUND_TWICE.error(src, expr, expr=ast.unparse(expr), **fields)


def depth_error(expr: ast.expr, src: Source) -> RewriteError:
    return rules.TOO_DEEP.error(src, expr, expr=ast.unparse(expr), past=PAST_DEPTH)


def unseen_error(node: ast.ClassDef, base: ast.expr, src: Source) -> RewriteError:
    return rules.UNSEEN_BASE_FIELD.error(src, base, cls=node.name, base=ast.unparse(base))


def factory_error(expr: ast.expr, ref: TransformRef, src: Source) -> RewriteError:
    name = ref.transform.name
    return rules.FACTORY_KEYWORDS.error(src, expr, name=name, expr=ast.unparse(expr))


def check_import_visible(node: ast.expr, scope: Scope, src: Source) -> None:
    """The generated text calls the builtin ``__import__`` (no import statement, no new module
    name); a module that binds that name itself would make it call something else: refuse."""
    if binding_scope("__import__", scope) is not None:
        raise rules.IMPORT_BOUND.error(src, node)
