"""Names of an annotation that another module defines: where a marker alias would act, but the
rewrite reads only its own module. The ledger's JR009 and ``imported``'s JR013 ask here.

``from m import X`` and ``al.Steps`` (``from . import aliases as al``, ``import pkg.aliases``)
are followed through an ``ImportReader`` (``check`` and ``show`` pass one; it reads source, and
imports nothing), and each name gets a verdict: no marker, a marker alias (or a class with marked
fields), or unreadable.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterator

from jaxrewrite.engine.read.resolve import parse_string, qualname
from jaxrewrite.engine.read.scopes import (
    Assigned,
    DefinedClass,
    Imported,
    Opaque,
    Scope,
    build_scopes,
)

#: Reads another module's source for an imported name: (module as written, relative level) ->
#: its text, or None when it cannot be found. Front ends with a file pass one (``check``,
#: ``show``); without it every candidate import is a finding that says it was not followed.
ImportReader = Callable[[str, int], "str | None"]

#: Top-level packages whose exports are never marker aliases: the standard library (below) and
#: the libraries whose types annotate JAX code. A name imported from anywhere else into a marker
#: position may be an alias of a marker: the ledger follows it, or says it could not.
_NOT_MARKERS = frozenset(
    {
        "jax",
        "jaxlib",
        "numpy",
        "flax",
        "equinox",
        "optax",
        "chex",
        "jaxtyping",
        "typing_extensions",
        "scipy",
        "ml_dtypes",
        "haiku",
        "orbax",
        "torch",
        "tensorflow",
        "pandas",
        "beartype",
        "attrs",
        "attr",
        "pydantic",
        "mypy_extensions",
        "numpy.typing",
        "jaxrewrite",
    }
)
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))

#: Whether an expression spells a marker (the ledger's reading, passed in: one reader of markers).
Mentions = Callable[[ast.expr, Scope], bool]


class Elsewhere:
    """The imports of one module, and what each name they bind means in its own module."""

    def __init__(self, reader: ImportReader | None, mentions: Mentions) -> None:
        self.reader = reader
        self.mentions = mentions
        #: Names a ``from`` import binds: (module as written, level).
        self.relative: dict[str, tuple[str, int]] = {}
        #: Names an import binds to what may be a module, with its dotted name and level.
        self.modules: dict[str, tuple[str, int]] = {}
        self._followed: dict[tuple[str, int, str], str | None] = {}

    def note(self, stmt: ast.Import | ast.ImportFrom) -> None:
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                self.relative[alias.asname or alias.name] = (stmt.module or "", stmt.level)
                # ``from . import aliases as al``: ``al`` may be a module (``al.Steps``).
                dotted = f"{stmt.module}.{alias.name}" if stmt.module else alias.name
                self.modules[alias.asname or alias.name] = (dotted, stmt.level)
        else:
            for alias in stmt.names:
                bound = alias.asname or alias.name.partition(".")[0]
                self.modules[bound] = (alias.name if alias.asname else bound, 0)

    def names(self, ann: ast.expr, scope: Scope) -> Iterator[tuple[str, ast.expr, str, int]]:
        """Each name of ``ann`` where a marker would act that another module defines, and that
        is no library's: (the name there, the node locating it here, that module, its level)."""
        for spelled, at in positions(ann, scope):
            node: ast.expr = spelled
            parts: list[str] = []
            while isinstance(node, ast.Attribute):
                parts.insert(0, node.attr)
                node = node.value
            if not isinstance(node, ast.Name):
                continue
            found = scope.lookup(node.id)
            if (
                found is None
                or len(found[0]) != 1
                or not isinstance(found[0][0], (Imported, Opaque))
            ):
                continue
            if not parts and node.id in self.relative:
                module, level = self.relative[node.id]
                name = node.id
            elif parts and node.id in self.modules:
                base, level = self.modules[node.id]
                module, name = (
                    ".".join([base, *parts[:-1]]) if base else ".".join(parts[:-1]),
                    parts[-1],
                )
            else:
                continue
            if level == 0 and library(module):
                continue
            yield name, at, module, level

    def follow(self, module: str, level: int, name: str) -> str | None:
        """'' when the other module's ``name`` spells no marker; a description when it does;
        None when it cannot be read."""
        key = (module, level, name)
        if key not in self._followed:
            self._followed[key] = self._follow(module, level, name)
        return self._followed[key]

    def _follow(self, module: str, level: int, name: str) -> str | None:
        read = None if self.reader is None else read_module(self.reader, module, level)
        if read is None:
            return None
        text, tree = read
        scopes = build_scopes(tree, text, defer=False)
        try:
            found = scopes.module.lookup(name)
            if found is None or len(found[0]) != 1:
                return None
            binding = found[0][0]
            if isinstance(binding, Assigned):
                return "an alias of a marker" if self.mentions(binding.value, binding.scope) else ""
            if isinstance(binding, DefinedClass):
                marked_fields = any(
                    isinstance(s, ast.AnnAssign) and self.mentions(s.annotation, binding.body)
                    for s in binding.node.body
                )
                return "a class with Static/NoDiff fields" if marked_fields else ""
            if isinstance(binding, Imported):
                top = binding.qualname.partition(".")[0]
                return "" if library(top) else None
            return "" if not isinstance(binding, Opaque) else None
        finally:
            scopes.release()


def positions(
    ann: ast.expr, scope: Scope, where: ast.expr | None = None, depth: int = 0
) -> Iterator[tuple[ast.Name | ast.Attribute, ast.expr]]:
    """The names and attribute chains of an annotation where a marker alias would act (the
    annotation itself, a subscript's head, ``Annotated``'s type and metadata, a string holding
    one), each with the node of the module's own tree that locates it (a string's names have
    positions of their own)."""
    if depth > 4:
        return
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        parsed = parse_string(ann.value)
        if parsed is not None:
            yield from positions(parsed, scope, where or ann, depth + 1)
    elif isinstance(ann, (ast.Name, ast.Attribute)):
        yield ann, where or ann
    elif isinstance(ann, ast.Subscript):
        if qualname(ann.value, scope) == "typing.Annotated":
            items = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            for item in items:
                yield from positions(item, scope, where, depth + 1)
        else:
            yield from positions(ann.value, scope, where, depth + 1)


def read_module(reader: ImportReader, module: str, level: int) -> tuple[str, ast.Module] | None:
    """Another module's text and tree, through ``reader``; None when it cannot be read or parsed."""
    text = reader(module, level)
    if text is None:
        return None
    try:
        return text, ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def library(module: str) -> bool:
    """A library that exports no markers (or the standard library): its names need no reading."""
    top = module.partition(".")[0]
    return top in _NOT_MARKERS or top in _STDLIB or top == "__future__"
