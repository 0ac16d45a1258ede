"""The keywords one transform use needs (its spec kind's math) and the refusals decorators and call
sites share.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Callable

from jaxrewrite.engine.analysis import Leaf
from jaxrewrite.engine.keywords import Values, complete, literal_ints
from jaxrewrite.engine.recognise import TransformRef
from jaxrewrite.engine.resolve import binding_scope, qualname
from jaxrewrite.engine.scopes import Scope
from jaxrewrite.engine.signature import Signature
from jaxrewrite.engine.source import Source
from jaxrewrite.engine.table import TRANSFORMS, SpecKind
from jaxrewrite.errors import RewriteError

Function = ast.FunctionDef | ast.AsyncFunctionDef


def same_statics(a: tuple[Signature, tuple[Leaf, ...]], b: tuple[Signature, tuple[Leaf, ...]]) -> bool:
    return a[0].statics() == b[0].statics() and [(*leaf.spec(), leaf.marks, leaf.inner) for leaf in a[1]] == [
        (*leaf.spec(), leaf.marks, leaf.inner) for leaf in b[1]
    ]


def per_leaf_names() -> str:
    """The transforms that split per-leaf entries, from the table (for JR106's message)."""
    return ", ".join(name for name, row in TRANSFORMS.items() if row.per_leaf is not None)


def complete_use(
    ref: TransformRef, sig: Signature, src: Source, where: ast.expr, leaves: bool, at_call: bool = False
) -> Values | None:
    """The keywords to write for one use: the spec math of the row's kind. With per-leaf
    entries the helper is always written, so there are always values (maybe none to add)."""
    own = _OWN_SPECS.get(ref.transform.spec)
    if own is not None:
        values = own(ref, sig, src, where if at_call else None)
    else:
        values = complete(ref, sig, src, where, force=leaves)
    if values is None and leaves:
        return []
    return values


def _diff_argnums(ref: TransformRef, sig: Signature, src: Source, call: ast.expr | None) -> Values | None:
    """grad-style: nothing to write, but a whole-parameter Static or NoDiff argument must not
    be differentiated (JAX would try to differentiate a Python value, or a NoDiff array).

    Located at a call site's call (the parameter may be far away), else at the parameter."""
    t = ref.transform
    marked = sig.marked(t.markers)
    if not marked:
        return None
    effective = {kw.arg: kw.value for kw in ref.keywords if kw.arg is not None}
    node = effective.get(t.argnums)
    if node is None and any(kw.arg is None for kw in ref.keywords):
        raise src.error(
            next(kw.value for kw in ref.keywords if kw.arg is None),
            "JR109",
            f"cannot check Static/NoDiff parameters against {t.name} keywords passed as **mapping",
        )
    nums = literal_ints(node, t.argnums, src) if node is not None else (0,)
    n = sig.n_positional
    for p in marked:
        if p.position is None:
            continue
        for num in nums:
            if num == p.position or (num < 0 and not sig.var_positional and num + n == p.position):
                what = " and ".join(m.value for m in sorted(p.markers, key=lambda m: m.value))
                raise src.error(
                    p.node if call is None else call,
                    "JR121",
                    f"{p.name!r} is {what} but {t.name} differentiates it ({t.argnums} includes {num}); "
                    f"leave it out of {t.argnums}, or drop the {what} marker",
                )
    return None


_OWN_SPECS: dict[SpecKind, Callable[[TransformRef, Signature, Source, ast.expr | None], Values | None]] = {
    SpecKind.DIFF: _diff_argnums
}


def is_overload(func: Function, scope: Scope) -> bool:
    """``@typing.overload`` stubs are replaced by the implementation that follows them."""
    return any(qualname(deco, scope) == "typing.overload" for deco in func.decorator_list)


def header_mentions(func: Function, lines: list[int]) -> bool:
    """Does any of the sorted ``lines`` fall in the def's signature (its annotations live there)?

    The signature ends on the body's first line at the latest (``def f(x,\\n n: S): return x``).
    """
    at = bisect.bisect_left(lines, func.lineno)
    return at < len(lines) and bool(lines[at] <= func.body[0].lineno)


def ambiguity_error(expr: ast.expr, src: Source) -> RewriteError:
    return src.error(
        expr,
        "JR104",
        f"cannot tell whether {ast.unparse(expr)!r} is a JAX transform: its name is bound more than "
        "once in this scope, once to a transform; bind it once so the Static parameters are not ignored",
    )


def unseen_error(node: ast.ClassDef, base: ast.expr, src: Source) -> RewriteError:
    return src.error(
        base,
        "JR133",
        f"cannot tell what the Static fields of {node.name!r} mean: its base {ast.unparse(base)} is not "
        "defined in this module, so jaxrewrite cannot see whether it is an equinox.Module or a "
        "flax.struct.PyTreeNode; name that base too (class C(Base, eqx.Module)), or register the "
        "class with jax.tree_util.register_dataclass",
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
