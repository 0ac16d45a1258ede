"""Cheap pre-filters by name or text search, so that a cold import of a large module pays for
one pass over its statements: the import hook runs them all (``FAST``), ``migrate`` none
(``EXHAUSTIVE``); tests/engine/test_prefilters.py proves both give the same rewrite. The text
searches lex by regular expression, strings and comments masked at C speed (``tokenize`` costs
what a parse does); where that could be wrong they admit the text, and the parse decides.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from jaxrewrite.engine.read.classes import (
    FunctionalClass,
    LocalClass,
    body_annotations,
    functional_class,
    local_class,
)
from jaxrewrite.engine.read.markers import may_mark, names_made_from
from jaxrewrite.engine.read.nodes import (
    COMPREHENSIONS,
    child_nodes,
    comprehension_parts,
    own_expressions,
    parameter_names,
    target_names,
    walk,
    walrus_targets,
)
from jaxrewrite.engine.read.scopes import (
    OPAQUE,
    Assigned,
    Choice,
    Scope,
    ScopeKind,
    ScopeTree,
    choice_parts,
    loop_choice,
)
from jaxrewrite.engine.read.source import Source


@dataclass(frozen=True)
class Filters:
    """Which shortcuts the analysis may take; each only skips work that cannot matter."""

    #: Read only annotations naming what may spell a marker, and report no unmarked transform
    #: use. Off: every transform use is reported (``migrate``).
    marker_names: bool = True
    #: Look for call sites only on lines where a candidate name is a first argument.
    first_arguments: bool = True


FAST = Filters()
EXHAUSTIVE = Filters(marker_names=False, first_arguments=False)


def classes_with_markers(tree: ScopeTree, relevant: set[str] | None) -> dict[int, LocalClass]:
    """Classes whose fields (own or inherited) may carry markers, functional TypedDict and
    NamedTuple forms included; ``relevant`` None: every class."""
    found: dict[int, LocalClass] = {
        id(defined.node): (defined, scope)
        for defined, scope in tree.classes
        if relevant is None or any(may_mark(a, relevant) for a in body_annotations(defined.node))
    }
    for functional, scope in functional_classes(tree):
        if relevant is None or may_mark(functional.node, relevant):
            found[id(functional.node)] = (functional, scope)
    grew = bool(found)
    while grew:  # a class with a base found is found, to any depth
        grew = False
        for defined, scope in tree.classes:
            if id(defined.node) not in found and any(
                (local := local_class(base, scope)) is not None and id(local[0].node) in found
                for base in defined.node.bases
            ):
                found[id(defined.node)] = (defined, scope)
                grew = True
    return found


def _assigned(tree: ScopeTree) -> Iterator[tuple[str, Assigned]]:
    for scope in tree.scopes:
        for name, bindings in scope.bindings.items():
            yield from ((name, b) for b in bindings if isinstance(b, Assigned))


def functional_classes(tree: ScopeTree) -> list[tuple[FunctionalClass, Scope]]:
    """Every ``Name = TypedDict("Name", {...})`` / ``NamedTuple(...)`` of the module."""
    return [
        (functional, binding.scope)
        for name, binding in _assigned(tree)
        if (functional := functional_class(binding, name)) is not None
    ]


def may_matter(
    func: ast.FunctionDef | ast.AsyncFunctionDef, names: set[str], leaf_names: set[str]
) -> bool:
    """Could a parameter of ``func`` be marked, or annotated with a class with marked fields
    (``Cfg``, ``Optional[Cfg]``, ``"Cfg | None"``)?"""
    args, either = func.args, names | leaf_names
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return any(arg is not None and may_mark(arg.annotation, either) for arg in every)


def leaf_aliases(tree: ScopeTree, leaf_names: set[str]) -> set[str]:
    """``leaf_names`` with the names assigned from them (``Alias = Cfg``) and the classes with a
    field naming one, to any depth: an annotation naming none of these cannot be per-leaf."""
    names = set(leaf_names)
    if not names:
        return names  # the common module: no container with marked entries, nothing to read
    made = [(name, [binding.value]) for name, binding in _assigned(tree)]
    made += [(defined.node.name, body_annotations(defined.node)) for defined, _ in tree.classes]
    return names_made_from(names, made)


#: A call site, the scope it runs in, and the (line, flow) of its statement.
CallSite = tuple[ast.Call, Scope, tuple[int, int]]


def calls_and_aliases(
    names: list[str] | None,
    tree: ScopeTree,
    src: Source,
    filters: Filters,
    attributes: bool = False,
) -> list[CallSite]:
    """Calls in statements on lines where one of ``names`` or of what is made from them (aliases,
    loop targets over them, to any depth) is a first argument, in source order; None: all."""
    if names is not None and not names:
        return []
    lines: list[int] | None = None
    if filters.first_arguments and names is not None:
        pairs = [pair for scope in tree.scopes for pair in _pairs(scope, attributes)]
        known = batch = set(names)
        while batch:  # each name is read once, in the batch that found it
            made = {name for name, root in pairs if root in batch} | loop_targets(batch, src)
            batch = made - known
            known = known | batch
        found_at = _first_arguments(src.text)
        hits = found_at.keys() & known
        if not hits:
            return []
        starts = src.line_starts
        lines = sorted({bisect.bisect_right(starts, at) for name in hits for at in found_at[name]})
    found: list[CallSite] = []
    for first, last, stmt, scope, flow in tree.statements:
        if lines is not None and not (
            (at := bisect.bisect_left(lines, first)) < len(lines) and lines[at] <= last
        ):
            continue
        calls: list[tuple[ast.Call, Scope]] = []
        for expr in own_expressions(stmt):
            calls_in(expr, scope, calls)
        found += [(node, inner, (first, flow)) for node, inner in calls]
    found.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
    return found


def root_name(expr: ast.expr, attributes: bool = False) -> str | None:
    """The name under ``expr``'s first arguments (``f`` in ``jax.jit(partial(f, x))``); with
    ``attributes``, under its attributes too (``mod`` in ``jax.jit(mod.f)``)."""
    while True:
        if isinstance(expr, ast.Call) and expr.args and not isinstance(expr.args[0], ast.Starred):
            expr = expr.args[0]
        elif attributes and isinstance(expr, ast.Attribute):
            expr = expr.value
        else:
            return expr.id if isinstance(expr, ast.Name) else None


def _pairs(scope: Scope, attributes: bool) -> list[tuple[str, str]]:
    """A scope's (name, the name its value is made from) pairs: ``g = f``, ``f = jax.jit(f)``,
    ``h = partial(f, x)`` (with ``attributes``, ``g = mod.f`` from ``mod``), and a loop target
    over what is no literal, which stands for what its iterable is made from."""
    pairs = [
        (name, root)
        for name, bindings in scope.bindings.items()
        for b in choice_parts(bindings)
        if isinstance(b, Assigned)
        and (root := root_name(b.value, attributes)) is not None
        and root != name
    ]
    return pairs + [
        (name, n.id)
        for name, bindings in scope.bindings.items()
        for b in bindings
        if isinstance(b, Choice) and b.source is not None
        for n in walk(b.source)
        if isinstance(n, ast.Name) and n.id != name
    ]


def calls_in(expr: ast.AST, scope: Scope, out: list[tuple[ast.Call, Scope]]) -> None:
    """Every call in ``expr`` with the scope it runs in (a lambda's or a comprehension's own), in
    source order. A loop, not recursion: a generated expression may be deeper than the limit."""
    stack: list[tuple[ast.AST, Scope]] = [(expr, scope)]
    while stack:
        node, where = stack.pop()
        kind = type(node)
        if kind is ast.Call:
            out.append((node, where))  # type: ignore[arg-type]
        if kind is ast.Lambda:
            args = node.args  # type: ignore[attr-defined]
            walrus: list[tuple[str, bool, ast.expr | None]] = []
            walrus_targets(node.body, True, walrus)  # type: ignore[attr-defined]
            inner = Scope(ScopeKind.FUNCTION, where)
            for name in [*parameter_names(args), *(name for name, _, _ in walrus)]:
                inner.bind(name, OPAQUE)
            stack.append((node.body, inner))  # type: ignore[attr-defined]
            defaults = (*args.defaults, *(d for d in args.kw_defaults if d is not None))
            stack.extend((default, where) for default in reversed(defaults))
        elif kind in COMPREHENSIONS:
            outside, inside, _ = comprehension_parts(node)
            inner = Scope(ScopeKind.FUNCTION, where)
            generators: list[ast.comprehension] = node.generators  # type: ignore[attr-defined]
            for index, generator in enumerate(generators):
                # The first iterable runs in the enclosing scope, the others in this one.
                made = loop_choice(generator.target, generator.iter, where if index == 0 else inner)
                for name in target_names(generator.target):
                    inner.bind(name, made, (0, 0))
            stack.extend((part, inner) for part in reversed(inside))
            stack.append((outside, where))
        else:
            stack.extend((child, where) for child in reversed(child_nodes(node)))


@lru_cache(maxsize=1)
def _first_arguments(text: str) -> dict[str, list[int]]:
    """Where each identifier that is a first argument starts: one scan per module."""
    found: dict[str, list[int]] = {}
    for match in FIRST_ARGUMENT.finditer(text):
        found.setdefault(match.group(1), []).append(match.start(1))
    return found


#: Blanks and comments between "(" and a first argument. A comment takes its line break, so the
#: text has one reading (``#[^\n]*`` repeated splits ``#a#b#c...`` 2**n ways, all tried by a
#: failed search: 30 pairs stalled an import for minutes).
_GAP = r"(?:\s|#[^\r\n]*[\r\n])*"

#: An identifier right after "(": call sites pass the function first (``jax.jit(f)``,
#: ``jax.jit(wrapper(f))``), so only these lines can hold one.
FIRST_ARGUMENT = re.compile(r"\(" + _GAP + r"([^\W\d]\w*)")

IDENTIFIER = re.compile(r"[^\W\d]\w*")
#: How far a loop's text is read past its ``for`` while a bracket it opened is open.
_LOOP_REACH = 4096


@lru_cache(maxsize=4)
def _loops(text: str) -> tuple[tuple[int, frozenset[str], frozenset[str]], ...]:
    """Each ``for TARGETS in ITERABLE`` of the text, strings and comments too: (offset of its
    ``for``, its targets' identifiers, those of the rest of its logical line up to the next
    ``for``, so that many ``for``s cost what the text's size does)."""
    found = []
    heads = list(word_starts(text, "for"))
    # To the next ``for`` at most: a literal iterable (the only kind whose elements are read,
    # ``scopes.Choice``) holds none, and a nested loop is an entry of its own.
    for head, following in zip(heads, [*heads[1:], len(text)]):
        end = _line_end(text, head + 3, min(following, head + _LOOP_REACH))
        words = IDENTIFIER.findall(text, head + 3, end)
        if "in" not in words:
            continue
        at = words.index("in")
        found.append((head, frozenset(words[:at]), frozenset(words[at + 1 :])))
    return tuple(found)


def _line_end(text: str, start: int, stop: int) -> int:
    """The first line break in ``text[start:stop]`` where the brackets opened since ``start`` are
    closed, else ``stop``: a logical line's end (brackets counted per line, at C speed)."""
    depth = 0
    at = start
    while True:
        line_break = text.find("\n", at, stop)
        if line_break < 0:
            return stop
        line = text[at:line_break]
        depth += sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}")
        if depth <= 0:
            return line_break
        at = line_break + 1


def loop_targets(names: Iterable[str], src: Source) -> set[str]:
    """The names loops and comprehensions over ``names`` may bind (``for fn in (f, g):``), a
    superset: like an alias, their call sites are to be looked at too."""
    over = frozenset(names)
    return {
        name
        for _, targets, rest in _loops(src.text)
        if not over.isdisjoint(rest)
        for name in targets
    }


#: A string literal (its prefix letters are left as they are: they are no bracket nor quote) or
#: a comment, matched left to right so that each is read as the tokenizer reads it. Each loop is
#: unrolled (a run of plain characters, then an escape or a lone quote, then a run...), so a
#: string left open is given up in one pass: ``(?:[^']+|...)*`` would try every split of it.
_STRINGS = (
    r"'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    r'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
)
MASKED_TOKEN = re.compile(r"#[^\n]*|" + _STRINGS, re.DOTALL)


def _formatted(text: str, quote: int) -> bool:
    """Do the letters right before the quote (a prefix has two at most) say f- or t-string?"""
    at = quote
    while at > quote - 2 and at and text[at - 1].isalpha():
        at -= 1
    prefix = text[at:quote].lower()
    return "f" in prefix or "t" in prefix


def _fields_closed(token: str) -> bool:
    """Does every replacement field of an f-string close inside it? One that does not was cut
    at a quote inside a field (PEP 701 allows that from Python 3.12): this lexer cannot tell."""
    depth = 0
    i, n = 0, len(token)
    while i < n:
        ch = token[i]
        if depth == 0 and ch in "{}" and token[i + 1 : i + 2] == ch:
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0


def code_mentions(text: str, names: tuple[str, ...], unless: re.Pattern[str] | None = None) -> bool:
    """Does one of ``names`` appear as a word in ``text`` outside its comments and strings
    (``unless`` what follows it matches)? A superset, for a pre-filter: an f-string counts as code,
    and so does the text where the lexer is unsure (an f-string cut at a quote in its fields,
    which Python 3.12 allows, may have hidden code after it)."""
    last = last_word(text, names)
    if last < 0:
        return False
    if "\r" in text:
        return True  # a comment would run past a lone \r, which ends a line
    code = MASKED_TOKEN.sub(" ", text)
    for name in names:
        if any(
            unless is None or unless.match(code, at + len(name)) is None
            for at in word_starts(code, name)
        ):
            return True
    for token in MASKED_TOKEN.finditer(text):
        if token.start() > last:
            break
        found = token.group()
        if found[0] != "#" and "{" in found and _formatted(text, token.start()):
            if not _fields_closed(found) or last_word(found, names) >= 0:
                return True
    return False


def last_word(text: str, names: tuple[str, ...]) -> int:
    """Where the last of ``names`` standing as a whole word starts in ``text``, -1 if none does."""
    return max((at for name in names for at in word_starts(text, name)), default=-1)


def any_word(text: str, names: tuple[str, ...]) -> bool:
    """Does one of ``names`` stand as a whole word in ``text``?"""
    return any(next(word_starts(text, name), None) is not None for name in names)


def word_starts(text: str, name: str) -> Iterator[int]:
    """Where ``name`` stands as a whole word in ``text`` (as ``\\bname\\b`` matches), by
    ``str.find``."""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        if not (at and _word(text[at - 1])) and not (end < len(text) and _word(text[end])):
            yield at
        at = text.find(name, end)


def _word(char: str) -> bool:
    return char == "_" or char.isalnum()
