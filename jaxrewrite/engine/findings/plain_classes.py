"""Classes of the module whose instances are surely neither pytrees nor arrays (JR006: JAX cannot
trace such an argument): no base but ``object``, no decorator but ``@dataclass``, no
``__jax_array__``, and never used where a registration or a subclass could make them one."""

from __future__ import annotations

import ast

from jaxrewrite.engine.read.classes import DATACLASS
from jaxrewrite.engine.read.nodes import walk
from jaxrewrite.engine.read.resolve import qualname
from jaxrewrite.engine.read.scopes import DefinedClass, Scope

Function = ast.FunctionDef | ast.AsyncFunctionDef


class Classes:
    """Classes of the module whose instances are surely not pytrees nor arrays."""

    def __init__(self, module: ast.Module) -> None:
        self.module = module
        self._other_uses: set[str] | None = None
        self.owners: dict[int, ast.ClassDef] = {}

    def plain(self, binding: DefinedClass, scope: Scope) -> bool:
        return self.plain_node(binding.node, scope)

    def owner(self, func: Function) -> ast.ClassDef | None:
        """The class whose body defines ``func`` (a method), if any (``Sites`` finds them)."""
        return self.owners.get(id(func))

    def plain_node(self, node: ast.ClassDef, scope: Scope) -> bool:
        if node.keywords or any(
            not (isinstance(b, ast.Name) and b.id == "object") for b in node.bases
        ):
            return False
        if any(
            qualname(d.func if isinstance(d, ast.Call) else d, scope) != DATACLASS
            for d in node.decorator_list
        ):
            return False
        if any(
            isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__jax_array__"
            for s in node.body
        ):
            return False
        return node.name not in self.registered()

    def registered(self) -> set[str]:
        """Names used other than as a constructor, an annotation or isinstance's class: such a
        class may be registered as a pytree (``register_pytree_node(C, ...)``) or subclassed."""
        if self._other_uses is None:
            allowed: set[int] = set()
            for node in walk(self.module):
                if isinstance(node, ast.Call):
                    allowed.add(id(node.func))
                    if (
                        isinstance(node.func, ast.Name)
                        and node.func.id == "isinstance"
                        and len(node.args) == 2
                    ):
                        allowed.add(id(node.args[1]))
                elif isinstance(node, ast.arg) and node.annotation is not None:
                    allowed.update(id(n) for n in walk(node.annotation))
                elif (
                    isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and node.returns is not None
                ):
                    allowed.update(id(n) for n in walk(node.returns))
                elif isinstance(node, ast.AnnAssign):
                    allowed.update(id(n) for n in walk(node.annotation))
            self._other_uses = {
                n.id for n in walk(self.module) if isinstance(n, ast.Name) and id(n) not in allowed
            }
        return self._other_uses
