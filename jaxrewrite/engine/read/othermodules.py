"""Names another module defines, read from source through an ``ImportReader`` (imports nothing),
for JR009 (the ledger's) and JR013: ``reaches``, which import a name stands for through
assignments; ``Exports``, where another module binds a name, and what that binding is."""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from jaxrewrite.engine.read.classes import body_annotations
from jaxrewrite.engine.read.nodes import statements
from jaxrewrite.engine.read.resolve import MAX_DEPTH, parse_string, qualname
from jaxrewrite.engine.read.scopes import (
    Assigned,
    Binding,
    DefinedClass,
    Imported,
    Opaque,
    Scope,
    Site,
    build_scopes,
)
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.read.wrappers import peel

#: (module as written, relative level) -> its text, or None when it cannot be found (``check``'s
#: and ``show``'s; without one every candidate import is a finding that says it was not read).
ImportReader = Callable[[str, int], "str | None"]

#: Top-level packages whose exports are never marker aliases, beside the standard library: the
#: libraries whose types annotate JAX code. A name imported from anywhere else may be one.
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

#: An import a name may stand for: (module, level, the attributes below it, the import as
#: written); None: anything else.
Reach = tuple[str, int, tuple[str, ...], str] | None
#: A module's imports from modules that may hold markers, by the name bound and the import's line.
Origins = dict[str, dict[int, Reach]]
Memo = dict[tuple[str, int, Site | None, int], list[Reach]]


def verdict(
    mentions: Callable[[ast.expr, Scope], bool], binding: Binding, scope: Scope, source: Source
) -> str | None:
    """JR009's ``Exports`` judge (``mentions``: the ledger's reading of a marker): a marker alias
    or a class with marked fields, '' for anything else, None for an import (followed)."""
    if isinstance(binding, Assigned):
        return "an alias of a marker" if mentions(binding.value, binding.scope) else ""
    if isinstance(binding, DefinedClass):
        marked_fields = any(mentions(a, binding.body) for a in body_annotations(binding.node))
        return "a class with Static/NoDiff fields" if marked_fields else ""
    if isinstance(binding, Imported):
        return "" if library(binding.qualname) else None  # else followed
    return "" if not isinstance(binding, Opaque) else None


T = TypeVar("T")
#: A module by its name and level, seen from the checked file (level 0: absolute).
Where = tuple[str, int]
#: A name of a module: (module, level, the name there).
Name = tuple[str, int, str]


#: What ``Exports`` finds where a module does not bind a name.
_ABSENT = object()


@dataclass
class _Module(Generic[T]):
    """One other module's names: those the judge settled; where the others lead (each reading of
    a relative import, a package's first); its star imports (None for a library's); its literal
    ``__all__``."""

    own: dict[str, T] = field(default_factory=dict)
    leads: dict[str, list[Name]] = field(default_factory=dict)
    bound: set[str] = field(default_factory=set)
    stars: list[list[Where] | None] = field(default_factory=list)
    exported: frozenset[str] | None = None


class Exports(Generic[T]):
    """Other modules, read once each, and their names followed to where they are bound (imports,
    ``X = impl.X``, star imports, a package ``__init__`` re-exporting, chains of these, a cycle
    ending); ``judge`` says what a module-level binding found there is, while its scopes are live
    (None: nothing it settles)."""

    def __init__(
        self, reader: ImportReader, judge: Callable[[Binding, Scope, Source], T | None]
    ) -> None:
        self.reader = reader
        self.judge = judge
        self.read: dict[Where, _Module[T] | None] = {}

    def find(self, module: str, level: int, name: str) -> tuple[str, int, T] | None:
        """(the module binding ``name``, its level, the judge's verdict); None where it cannot be
        followed, or the judge settles nothing there."""
        found = self._find((module, level, name), set())
        return None if found is _ABSENT else found  # type: ignore[return-value]

    def _find(self, key: Name, seen: set[Name]) -> tuple[str, int, T] | object | None:
        """As ``find``, or ``_ABSENT`` where the module does not bind the name, or only through
        a cycle."""
        if key in seen:
            return _ABSENT
        seen.add(key)
        module, level, name = key
        read = self.module(module, level)
        if read is None:
            return None
        if name in read.own:
            return module, level, read.own[name]
        if name in read.leads:
            # Where a relative re-export leads depends on whether this module is a package:
            # the first reading whose module can be read (a module file has no submodules).
            lead = next((c for c in read.leads[name] if c != key and self.module(*c[:2])), None)
            return None if lead is None else self._find(lead, seen)
        if name in read.bound:
            return None
        for star in reversed(read.stars):  # the last star import binding the name wins
            if star is None:
                return None  # a library's: it may bind the name
            where = next((w for w in star if w != (module, level) and self.module(*w)), None)
            if where is None or (other := self.module(*where)) is None:
                return None
            if name[0] == "_" if other.exported is None else name not in other.exported:
                continue  # the star import does not bind it
            found = self._find((where[0], where[1], name), seen)
            if found is not _ABSENT:
                return found
        return _ABSENT

    def module(self, module: str, level: int) -> _Module[T] | None:
        if (module, level) not in self.read:
            self.read[module, level] = self._read(module, level)
        return self.read[module, level]

    def _read(self, module: str, level: int) -> _Module[T] | None:
        """None when it cannot be read. A name bound more than once there is left unsettled."""
        text = self.reader(module, level)
        if text is None:
            return None
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return None
        out: _Module[T] = _Module(exported=_all(tree.body))
        source = Source(text, f"{'.' * level}{module}")
        for stmt in tree.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.names[0].name == "*":
                out.stars.append(_wheres(module, level, stmt.module or "", stmt.level))
        imported = origins(tree)
        scopes = build_scopes(tree, text)
        memo: Memo = {}
        plain: dict[str, str] = {}  # ``step = f``: what the judge settled for ``f``
        try:
            out.bound.update(scopes.module.bindings)
            for name, bindings in scopes.module.bindings.items():
                if len(bindings) != 1:
                    continue
                binding = bindings[0]
                verdict = self.judge(binding, scopes.module, source)
                if verdict is not None:
                    out.own[name] = verdict
                    continue
                if isinstance(binding, Assigned) and not binding.type_statement:
                    if isinstance(binding.value, ast.Name):
                        plain[name] = binding.value.id
                found = reaches(name, scopes.module, None, imported, memo, peeled=False)
                named = found_name(found[0], []) if len(found) == 1 else None
                if named is not None:
                    wheres = _wheres(module, level, named[0], named[1]) or []
                    out.leads[name] = [(*where, named[2]) for where in wheres]
            while any(n not in out.own and b in out.own for n, b in plain.items()):
                out.own.update({n: out.own[b] for n, b in plain.items() if b in out.own})
        except RecursionError:
            return None
        finally:
            scopes.release()
        return out


def _wheres(module: str, level: int, target: str, steps: int) -> list[Where] | None:
    """Each reading of where ``from <steps dots><target> import`` in ``module`` leads, seen from
    the checked file: ``module`` a package's ``__init__`` first (its own folder is the first dot),
    then a module; None for a library's absolute import."""
    if steps == 0:
        return None if library(target) else [(target, 0)]
    found = []
    for up in (steps - 1, steps):
        parts, at = module.split(".") if module else [], level
        for _ in range(up):
            if parts:
                parts.pop()
            elif at == 0:
                break  # above a top-level package
            else:
                at += 1
        else:
            parts += target.split(".") if target else []
            if parts:
                found.append((".".join(parts), at))
    return found


def _all(body: list[ast.stmt]) -> frozenset[str] | None:
    """A module's ``__all__`` where only literal lists or tuples of strings make it."""
    names: set[str] | None = None
    for stmt in body:
        value = getattr(stmt, "value", None)
        if isinstance(value, ast.Call) and attributes(value.func)[0] == "__all__":
            return None
        target = getattr(stmt, "target", None)
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [target] if target else []
        if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            continue
        items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else None
        if items is None or not all(
            isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items
        ):
            return None
        names = (names or set()) | {i.value for i in items}  # type: ignore[attr-defined]
    return None if names is None else frozenset(names)


def attributes(expr: ast.expr) -> tuple[str | None, list[str]]:
    """``pkg.mod.f``: the name ``pkg``, then ``mod`` and ``f``; None where the base is no name."""
    path: list[str] = []
    while isinstance(expr, ast.Attribute):
        path.insert(0, expr.attr)
        expr = expr.value
    return (expr.id if isinstance(expr, ast.Name) else None), path


def positions(
    ann: ast.expr, scope: Scope, where: ast.expr | None = None, depth: int = 0
) -> Iterator[tuple[ast.Name | ast.Attribute, ast.expr]]:
    """The names and attribute chains of an annotation where a marker alias would act (itself, a
    subscript's head, ``Annotated``'s items, in strings too), each with the node locating it."""
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


def library(module: str) -> bool:
    """A library that exports no markers: its names need no reading."""
    top = module.partition(".")[0]
    return top in _NOT_MARKERS or top in _STDLIB or top == "__future__"


def origins(module: ast.Module) -> Origins:
    """The module's imports from modules that may hold markers, wherever they are."""
    out: Origins = {}
    for node in statements(module.body):
        if isinstance(node, ast.ImportFrom) and not (
            node.level == 0 and library(node.module or "")
        ):
            for alias in node.names:
                if alias.name != "*":
                    written = ast.unparse(ast.ImportFrom(node.module, [alias], node.level))
                    origin = (node.module or "", node.level, (alias.name,), written)
                    out.setdefault(alias.asname or alias.name, {})[node.lineno] = origin
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if not library(alias.name):
                    # ``import a.b`` binds ``a``; ``import a.b as m`` binds ``m`` to ``a.b``
                    name = alias.asname or alias.name.partition(".")[0]
                    dotted = alias.name if alias.asname else name
                    written = ast.unparse(ast.Import([alias]))
                    out.setdefault(name, {})[node.lineno] = (dotted, 0, (), written)
    return out


def reaches(
    name: str,
    scope: Scope,
    site: Site | None,
    origins: Origins,
    memo: Memo,
    depth: int = 0,
    peeled: bool = True,
) -> list[Reach]:
    """What ``name`` read at ``site`` in ``scope`` (None: anywhere) may stand for, once each: an
    import (the binding's line says which), or what a name it is assigned from stands for (``m =
    mymod``, ``fast = jax.jit(f)``), with the attributes below; None for anything else. ``memo``:
    names bound two ways at every link cost links, not 2**links. ``peeled`` False: a transform of
    a name is no way to it (another module's ``fast = jax.jit(f)`` is transformed there)."""
    key = (name, id(scope), site, depth)
    if key in memo:
        return memo[key]
    found = scope.lookup(name) if depth <= MAX_DEPTH else None
    if found is None:
        return [None]
    bindings, where = found
    seen = where.bindings_seen_at(name, site) if site is not None and where is scope else bindings
    ids = {id(b) for b in seen or ()}
    out: list[Reach] = []
    for binding, at in zip(bindings, where.sites[name]):
        if id(binding) not in ids:
            continue
        if isinstance(binding, (Imported, Opaque)):
            out.append(origins.get(name, {}).get(at[0]))
        elif isinstance(binding, Assigned) and not binding.type_statement:
            value = peel(binding.value, binding.scope)[0] if peeled else binding.value
            base, path = attributes(value)
            more = (
                [None]
                if base is None
                else reaches(base, binding.scope, at, origins, memo, depth + 1, peeled)
            )
            out += [r and (r[0], r[1], (*r[2], *path), r[3]) for r in more]
        else:
            out.append(None)
    memo[key] = out = list(dict.fromkeys(out))
    return out


def found_name(reach: Reach, path: list[str]) -> Name | None:
    """The (module, level, name) that ``path`` below a reached import names; None for a module
    itself, or no import."""
    if reach is None:
        return None
    module, level, parts, _ = reach
    *held, name = [*parts, *path] or [""]
    return (".".join([module, *held] if module else held), level, name) if name else None
