"""An engine environment from a live namespace: what a cell's free names are bound to *now*,
by object (after ``J = jax.jit``, ``@J`` means jit while ``J is jax.jit``), and stand-ins: the
Static defs and per-leaf classes of earlier cells as source in front of the cell, while the
namespace still holds the very object that statement made (docs/design.md, "The IPython
extension").
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import keyword
import re
import sys
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import typing_extensions

from jaxrewrite import markers
from jaxrewrite.engine.read import scopes
from jaxrewrite.engine.read.classes import FunctionalClass, read_class
from jaxrewrite.engine.read.filters import FIRST_ARGUMENT, functional_classes
from jaxrewrite.engine.read.markers import names_marker
from jaxrewrite.engine.read.scopes import (
    Assigned,
    Binding,
    DefinedClass,
    Imported,
    MarkerBinding,
    Opaque,
    Scope,
    ScopeKind,
)
from jaxrewrite.engine.read.signature import read_signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.read.wrappers import peel
from jaxrewrite.engine.rulebook.table import Container, Mark
from jaxrewrite.errors import RewriteError

__all__ = ["MISSING", "WORD", "StandIn", "binding_for", "definitions", "prepare"]

#: An identifier (a superset: strings and comments count).
WORD = re.compile(r"[^\W\d]\w*")
_OPAQUE = Opaque()
MISSING = object()
#: The runtime type of ``Annotated[T, x]`` aliases (``typing._AnnotatedAlias``, a private name).
_ANNOTATED_ALIAS = type(typing.Annotated[int, "x"])
#: Private names for what synthesized expressions refer to; no cell can mean them by accident.
_PRIVATE = "__jaxrewrite_{}__"


#: Objects whose dotted name is fixed whatever their ``__module__`` says, by ``id``.
_KNOWN = {id(value): f"jaxrewrite.{name}" for name, value in markers.UNCHECKED.items()}
_KNOWN.update(
    {id(typing.Annotated): "typing.Annotated", id(typing_extensions.Annotated): "typing.Annotated"}
)
_MARK_OF = {id(markers.UNCHECKED[mark.name]): mark for mark in Mark}


def mark_name(marks: frozenset[Mark]) -> str:
    """The private name a stand-in annotates a parameter carrying ``marks`` with."""
    return _PRIVATE.format("marked_" + "_".join(sorted(mark.name for mark in marks)))


@dataclass(frozen=True)
class StandIn:
    """A module-level def or class of a cell as source for a later cell: a def with marked
    parameters as ``def name(a, b, /, c: <mark>, *, d): ...``; a TypedDict or NamedTuple with
    marked fields as a flat class with every field, only the markers annotated."""

    name: str
    text: str
    #: The marker sets its annotations name (each bound to ``MarkerBinding`` in the environment).
    marks: frozenset[frozenset[Mark]]
    #: A def: where its statement starts (first decorator), its code's ``co_firstlineno``.
    first_line: int = 0
    is_class: bool = False
    #: Names the text refers to that may be stand-ins themselves (a def's class annotations).
    mentions: frozenset[str] = frozenset()


def prepare(
    text: str, namespace: Mapping[str, Any], recorded: Mapping[str, tuple[StandIn, object]]
) -> tuple[dict[str, Binding], str, bool]:
    """The environment for ``text``: a binding for every namespace name it mentions, and the
    stand-ins of the recorded defs it passes as a first argument and the recorded classes it
    names, while their name still holds the object (``recorded``: stand-in and object) they
    made; a def's under the name it is recorded by (``fast = jax.jit(make_hypercube)``). Then
    the stand-ins' text, to analyze in front of the cell, and whether the cell can need a
    rewrite at all (whether anything it names can spell a marker)."""
    environment: dict[str, Binding] = {}
    chosen: list[StandIn] = []
    relevant = "jaxrewrite" in text
    # a call site's function (``pmap(f, ...)``): the only place a def's stand-in can matter
    called = set(FIRST_ARGUMENT.findall(text)) if recorded else set()
    pending = list(set(WORD.findall(text)))
    seen: set[str] = set()
    while pending:
        word = pending.pop()
        if word in seen:
            continue
        seen.add(word)
        value = namespace.get(word, MISSING)
        if value is MISSING:
            continue
        stand_in, made = recorded.get(word, (None, MISSING))
        if stand_in is not None and made is value and (stand_in.is_class or word in called):
            if word != stand_in.name and not stand_in.is_class:
                renamed = f"def {word}" + stand_in.text[len(f"def {stand_in.name}") :]
                stand_in = dataclasses.replace(stand_in, name=word, text=renamed)
            chosen.append(stand_in)
            for marks in stand_in.marks:
                environment[mark_name(marks)] = MarkerBinding(marks)
            pending.extend(stand_in.mentions)
            relevant = True
            continue
        binding = binding_for(value)
        environment[word] = binding
        # A marker's name, or a generic marker alias made of one.
        if not relevant and (
            names_marker(binding)
            or (isinstance(binding, Assigned) and isinstance(binding.value, ast.Subscript))
        ):
            relevant = True
    if chosen or any(isinstance(b, Assigned) for b in environment.values()):
        environment.update(_PRIVATE_NAMES)  # what stand-ins and synthesized aliases refer to
    chosen.sort(key=lambda stand_in: (not stand_in.is_class, stand_in.name))
    return environment, "".join(stand_in.text for stand_in in chosen), relevant


def binding_for(value: object) -> Binding:
    """What a namespace value is to the engine: a module or a function/class by its dotted name
    (that denotes this very object), a marker alias, a ``partial`` of a known function, else
    opaque."""
    try:
        if isinstance(value, ModuleType):
            name = getattr(value, "__name__", None)
            return Imported(name) if isinstance(name, str) else _OPAQUE
        if id(value) in _KNOWN:
            return Imported(_KNOWN[id(value)])
        if isinstance(value, _ANNOTATED_ALIAS):
            return _annotated(value)
        if type(value) is functools.partial:
            return _partial(value)
        # A function or class by ``module.name``, only when that name denotes this very object.
        module = getattr(value, "__module__", None)
        name = getattr(value, "__qualname__", None)
        if not isinstance(module, str) or not isinstance(name, str) or "." in name or "<" in name:
            return _OPAQUE
        owner = sys.modules.get(module)
        if owner is None or vars(owner).get(name, MISSING) is not value:
            return _OPAQUE
        return Imported(f"{module}.{name}")
    except Exception:  # a proxy whose attribute access raises: nothing jaxrewrite could use
        return _OPAQUE


def _annotated(value: Any) -> Binding:
    """``S = Static[int]`` run earlier: a marker alias; a generic one (``Static[T]``) becomes
    the alias expression ``Annotated[T, STATIC]``."""
    marks = frozenset(_MARK_OF[id(item)] for item in value.__metadata__ if id(item) in _MARK_OF)
    if not marks:
        return _OPAQUE
    if not getattr(value, "__parameters__", ()):
        return MarkerBinding(marks)
    items = ", ".join(_PRIVATE.format(name) for name in ["T", *sorted(m.name for m in marks)])
    return _alias(f"{_PRIVATE.format('Annotated')}[{items}]")


def _partial(value: functools.partial[Any]) -> Binding:
    """``my_jit = partial(jax.jit, donate_argnums=0)`` run earlier: the alias, its keywords
    written as the literals they are now (a keyword no call could spell left out)."""
    inner = binding_for(value.func)
    if value.args or not isinstance(inner, Imported):
        return _OPAQUE
    keywords = "".join(
        f", {name}={_literal(item)}"
        for name, item in value.keywords.items()
        if name.isidentifier() and not keyword.iskeyword(name)
    )
    func = _PRIVATE.format("func")
    return _alias(f"{_PRIVATE.format('partial')}({func}{keywords})", **{func: inner})


#: What the synthesized alias expressions name, bound both in their own scope and in the cell's
#: environment (the engine's pre-filter looks for marker names there).
_PRIVATE_NAMES: dict[str, Binding] = {
    _PRIVATE.format("Annotated"): Imported("typing.Annotated"),
    _PRIVATE.format("STATIC"): Imported("jaxrewrite.STATIC"),
    _PRIVATE.format("NODIFF"): Imported("jaxrewrite.NODIFF"),
    _PRIVATE.format("partial"): Imported("functools.partial"),
    _PRIVATE.format("T"): _OPAQUE,
    _PRIVATE.format("opaque"): _OPAQUE,
    _PRIVATE.format("TypedDict"): Imported("typing.TypedDict"),
    _PRIVATE.format("NamedTuple"): Imported("typing.NamedTuple"),
    _PRIVATE.format("field"): _OPAQUE,
}
_CONTAINER_BASE = {
    Container.DICT: _PRIVATE.format("TypedDict"),
    Container.NAMEDTUPLE: _PRIVATE.format("NamedTuple"),
}


def _alias(text: str, **bound: Binding) -> Assigned:
    """The alias expression ``text`` over the private names (and ``bound``), every node at line 1
    column 0, as a message about it would place it."""
    scope = Scope(ScopeKind.ENVIRONMENT, None)
    for name, binding in {**_PRIVATE_NAMES, **bound}.items():
        scope.bind(name, binding)
    node = ast.parse(text, mode="eval").body
    for sub in ast.walk(node):
        sub.lineno = sub.end_lineno = 1  # type: ignore[attr-defined]
        sub.col_offset = sub.end_col_offset = 0  # type: ignore[attr-defined]
    return Assigned(node, scope)


def _literal(value: object) -> str:
    """``value`` as a literal's text, when it has one (containers at most four deep)."""

    def plain(item: object, depth: int) -> bool:
        if isinstance(item, (tuple, list)):
            return depth < 4 and all(plain(part, depth + 1) for part in item)
        return isinstance(item, (bool, int, float, str, bytes, type(None)))

    try:
        if plain(value, 0) and ast.literal_eval(repr(value)) == value:
            return repr(value)
    except (SyntaxError, ValueError, RecursionError):
        pass
    return _PRIVATE.format("opaque")


def definitions(
    text: str, environment: Mapping[str, Binding], leaf_classes: frozenset[str] = frozenset()
) -> tuple[dict[str, StandIn | None], dict[str, str]]:
    """What the module level of a cell's ``text`` leaves for later cells: its defs and classes
    by name (a stand-in, or None), from the last statement binding each; then ``target =
    <transforms and wrappers>(name)`` as target -> name, what the engine sees through at a call
    site, so the target keeps the def's stand-in (``fast = jax.jit(make_hypercube)``)."""
    tree = ast.parse(text, "<cell>")
    built = scopes.build_scopes(tree, text, outer=scopes.environment(environment))
    src = Source(text, "<cell>")
    found: list[tuple[int, str, StandIn | None]] = []
    rebound: dict[str, str] = {}
    try:
        module = built.module
        for defined, scope in built.classes:
            if scope is module:
                cls = defined.node
                found.append(_class_stand_in(cls.lineno, cls.name, defined, module, src))
        for c in functional_classes(built):
            if c.scope is module:
                found.append(_class_stand_in(c.call.lineno, c.name, c, module, src))
        leaves = leaf_classes | {name for _, name, stand_in in found if stand_in is not None}
        for node, scope in built.defs:
            if scope is module:
                found.append((node.lineno, node.name, _def_stand_in(node, scope, src, leaves)))
        for stmt in tree.body:
            if not (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                continue
            inner, offender = peel(stmt.value, module)
            target = stmt.targets[0].id
            if offender is None and isinstance(inner, ast.Name):
                rebound[target] = inner.id
            else:
                rebound.pop(target, None)
    finally:
        built.release()
    stand_ins = {name: stand_in for _, name, stand_in in sorted(found, key=lambda item: item[0])}
    return stand_ins, rebound


def _def_stand_in(
    node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, src: Source, leaves: frozenset[str]
) -> StandIn | None:
    try:
        signature = read_signature(node, scope, src)
    except RewriteError:
        return None  # refused: the rewrite of the cell says so
    named = {
        p.node.annotation.id for p in signature.params if isinstance(p.node.annotation, ast.Name)
    }
    if not signature.has_markers and not named & leaves:
        return None
    used: set[frozenset[Mark]] = set()
    mentions: set[str] = set()
    markers = {id(p.node): p.markers for p in signature.params}

    def spell(arg: ast.arg) -> str:
        annotation = arg.annotation
        if markers[id(arg)]:
            used.add(markers[id(arg)])
            return f"{arg.arg}: {mark_name(markers[id(arg)])}"
        if isinstance(annotation, ast.Name):  # a class with per-leaf statics, maybe
            mentions.add(annotation.id)
            return f"{arg.arg}: {annotation.id}"
        return arg.arg

    # The parameters as written, without defaults, annotated only with a marker or a class name.
    a = node.args
    parts = [*map(spell, a.posonlyargs), *(["/"] if a.posonlyargs else []), *map(spell, a.args)]
    parts += ["*" + spell(a.vararg)] if a.vararg else ["*"] if a.kwonlyargs else []
    parts += [*map(spell, a.kwonlyargs), *(["**" + spell(a.kwarg)] if a.kwarg else [])]
    first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    text = f"def {node.name}({', '.join(parts)}): ...\n"
    return StandIn(node.name, text, frozenset(used), first, mentions=frozenset(mentions))


def _class_stand_in(
    line: int, name: str, defined: DefinedClass | FunctionalClass, scope: Scope, src: Source
) -> tuple[int, str, StandIn | None]:
    """(line, name, the stand-in or None: not a TypedDict or NamedTuple with marked fields)."""
    try:
        info = read_class(defined, scope, src)
    except RewriteError:
        return line, name, None
    base = _CONTAINER_BASE.get(info.kind)
    if (
        base is None
        or not info.static_fields
        # TypedDict("C", {"a-b": ...}): no class statement can spell it
        or not all(f.name.isidentifier() and not keyword.iskeyword(f.name) for f in info.fields)
    ):
        return line, name, None
    lines = [f"class {name}({base}):\n"]
    for field in info.fields:
        annotation = mark_name(field.markers) if field.markers else _PRIVATE.format("field")
        lines.append(f"    {field.name}: {annotation}\n")
    marks = frozenset(field.markers for field in info.fields if field.markers)
    return line, name, StandIn(name, "".join(lines), marks, is_class=True)
