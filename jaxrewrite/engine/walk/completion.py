"""What decorators and call sites share besides the spec math (``engine.walk.specs``): the refusals
they both raise, and the per-leaf comparison of two defs.
"""

from __future__ import annotations

import ast
import bisect

from jaxrewrite.engine.analysis import Leaf
from jaxrewrite.engine.read.denote import Path, spelled
from jaxrewrite.engine.read.recognise import TransformRef
from jaxrewrite.engine.read.resolve import PAST_DEPTH, binding_scope, qualname
from jaxrewrite.engine.read.scopes import Scope
from jaxrewrite.engine.read.signature import Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import TRANSFORMS
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


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


def header_mentions(func: Function, lines: list[int]) -> bool:
    """Does any of the sorted ``lines`` fall in the def's signature (its annotations live there)?

    The signature ends on the body's first line at the latest (``def f(x,\\n n: S): return x``).
    """
    at = bisect.bisect_left(lines, func.lineno)
    return at < len(lines) and bool(lines[at] <= func.body[0].lineno)


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
