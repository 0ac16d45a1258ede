"""What decorators and call sites share besides the spec math (``engine.walk.specs``): the refusals
they both raise, and the per-leaf comparison of two defs.
"""

from __future__ import annotations

import ast
import bisect

from jaxrewrite.engine.analysis import Leaf
from jaxrewrite.engine.read.recognise import TransformRef
from jaxrewrite.engine.read.resolve import PAST_DEPTH, binding_scope, qualname
from jaxrewrite.engine.read.scopes import Scope
from jaxrewrite.engine.read.signature import Signature
from jaxrewrite.engine.read.elided import body_line
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.table import TRANSFORMS
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


def same_statics(a: tuple[Signature, tuple[Leaf, ...]], b: tuple[Signature, tuple[Leaf, ...]]) -> bool:
    return a[0].statics() == b[0].statics() and [(*leaf.spec(), leaf.marks, leaf.inner) for leaf in a[1]] == [
        (*leaf.spec(), leaf.marks, leaf.inner) for leaf in b[1]
    ]


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
    return at < len(lines) and bool(lines[at] <= body_line(func))


def ambiguity_error(expr: ast.expr, src: Source) -> RewriteError:
    return src.error(
        expr,
        "JR104",
        f"cannot tell whether {ast.unparse(expr)!r} is a JAX transform: its name is bound more than "
        "once in this scope, once to a transform; bind it once so the Static parameters are not ignored",
    )


def depth_error(expr: ast.expr, src: Source) -> RewriteError:
    return src.error(
        expr,
        "JR127",
        f"cannot tell whether {ast.unparse(expr)!r} is a JAX transform: {PAST_DEPTH}; name the transform "
        "directly (or through a shorter alias) so the Static parameters are not ignored",
    )


def unseen_error(node: ast.ClassDef, base: ast.expr, src: Source) -> RewriteError:
    return src.error(
        base,
        "JR133",
        f"cannot tell what the Static fields of {node.name!r} mean: its base {ast.unparse(base)} is not "
        "defined in this module, and a field's value, dataclasses.field(...) (or two libraries' field "
        "functions), says nothing of which library reads them; write that field with the library's own "
        "field function (eqx.field(static=True, ...), flax.struct.field(pytree_node=False, ...)) or "
        "jaxrewrite.field(static=True, ...), which both read, or drop Static there: on a Linen or NNX "
        "Module attributes are never traced leaves, so it is not needed",
    )


def factory_error(expr: ast.expr, ref: TransformRef, src: Source) -> RewriteError:
    name = ref.transform.name
    return src.error(
        expr,
        "JR105",
        f"cannot add {name} keywords to {ast.unparse(expr)!r}: it is the result of a decorator factory, "
        f"which takes only the function; define it with functools.partial({name}, ...) instead",
    )


def check_import_visible(node: ast.expr, scope: Scope, src: Source) -> None:
    """The generated text calls the builtin ``__import__`` (no import statement, no new module
    name); a module that binds that name itself would make it call something else: refuse."""
    if binding_scope("__import__", scope) is not None:
        raise src.error(
            node,
            "JR122",
            "the rewritten code calls the builtin __import__, which this module binds to something "
            "else; rename that binding",
        )
