"""What a rule's check is handed (``Context``): the analysis while its tree and scopes are alive,
with the readings several rules share (the marked defs), made once and on demand."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from jaxrewrite.engine.analysis import Analysis
from jaxrewrite.engine.read.othermodules import ImportReader
from jaxrewrite.engine.read.recognise import classify, looks_like_transform
from jaxrewrite.engine.read.scopes import Scope, ScopeTree
from jaxrewrite.engine.read.signature import Param
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.walk.walker import is_overload

if TYPE_CHECKING:
    from jaxrewrite.engine.walk.walker import Walked

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class MarkedDef:
    """A def with markers, as JR002 and JR004 judge it."""

    node: Function
    scope: Scope
    marked: tuple[Param, ...]
    #: A transform of the table applies to it (as a decorator or at a call site).
    applied: bool
    #: An ``@overload`` stub: the implementation after it is what transforms apply to.
    overload: bool
    #: A decorator or callee that looks like a transform jaxrewrite does not know, if any.
    unknown: ast.expr | None
    #: A use of it is refused because what is applied, or to what, cannot be told (JR104, JR127).
    refused: bool


@dataclass
class Context:
    """The analysis of one module while its tree lives. ``at_import``: the import hook's run
    (the rules whose record says ``at_import``); ``imports`` reads the modules names come from."""

    result: Analysis
    scopes: ScopeTree
    tree: ast.Module
    walk: Walked
    imports: ImportReader | None = None
    at_import: bool = False

    @property
    def src(self) -> Source:
        return self.result.source

    @cached_property
    def marked_defs(self) -> tuple[MarkedDef, ...]:
        walk, found = self.walk, []
        for func, scope in walk.tree.defs:
            sig, _ = walk.signatures.get(id(func), (None, None))
            if sig is None or not sig.has_markers:
                continue
            unknown = (
                d
                for d in func.decorator_list
                if classify(d, scope) is None and looks_like_transform(d, decorator=True)
            )
            found.append(
                MarkedDef(
                    func,
                    scope,
                    tuple(p for p in sig.params if p.markers),
                    id(func) in walk.applied,
                    is_overload(func, scope),
                    next(unknown, walk.unknown_calls.get(id(func))),
                    id(func) in walk.refused_defs,
                )
            )
        return tuple(found)
