"""A flax Linen module applied in a traced body (``model.apply(variables, x, train=train)``): the
call runs the module class's ``__call__`` with the arguments after the variables, so a traced
``train`` reaches ``nn.BatchNorm(use_running_average=not train)`` there. Read only where the
instance is a module-level name bound once to a call of a Linen class of this module.
"""

from __future__ import annotations

import ast

from jaxrewrite.engine.findings.flow import DEFS, Function, only
from jaxrewrite.engine.read.resolve import qualname
from jaxrewrite.engine.read.scopes import Assigned, DefinedClass, Scope

BASES = frozenset({"flax.linen.Module", "flax.linen.module.Module"})
#: ``Module.apply``'s own keywords; ``method=`` picks another method (then nothing is said).
_APPLY_OWN = frozenset({"rngs", "mutable", "capture_intermediates"})


def linen_class(binding: DefinedClass) -> bool:
    """Is the class a direct subclass of ``flax.linen.Module``?"""
    parent = binding.body.parent
    return parent is not None and any(qualname(b, parent) in BASES for b in binding.node.bases)


def applied(
    call: ast.Call, scope: Scope, local: set[str]
) -> tuple[Function, list[ast.expr], list[ast.keyword]] | None:
    """The ``__call__`` that ``call`` runs, with the arguments it passes it (not the variables)."""
    func = call.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr == "apply"
        and isinstance(func.value, ast.Name)
    ):
        return None
    if func.value.id in local or not call.args or isinstance(call.args[0], ast.Starred):
        return None
    if any(kw.arg is None or kw.arg == "method" for kw in call.keywords):
        return None
    instance = only(scope, func.value.id)
    if not isinstance(instance, Assigned) or not isinstance(instance.value, ast.Call):
        return None
    made = instance.value.func
    cls = only(instance.scope, made.id) if isinstance(made, ast.Name) else None
    if not isinstance(cls, DefinedClass) or not linen_class(cls):
        return None
    for stmt in cls.node.body:
        if isinstance(stmt, DEFS) and stmt.name == "__call__":
            keywords = [kw for kw in call.keywords if kw.arg not in _APPLY_OWN]
            return stmt, call.args[1:], keywords
    return None
