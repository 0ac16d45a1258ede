"""The real-code corpus: the installed jax, jaxlib and numpy sources, converted to Static annotations.

Used by ``tests/test_corpus.py``:

* ``corpus_files`` lists every ``.py`` file of the installed packages, sorted.
* ``read_module`` runs the engine's own analysis once per module (``analyze`` with the
  ``EXHAUSTIVE`` filters, no pragma needed): every transform use, decorators (``@partial(jit,
  static_argnums=...)``, ``@api.jit(static_argnames=...)``, ``@partial(custom_vjp,
  nondiff_argnums=...)``, ...) and call sites on the module's own defs (``api.jit(f,
  static_argnums=...)``), each with the keywords the user wrote there and the def's signature.
  Which names are transforms (imports, aliases, ``partial`` and factory forms, scopes) is the
  engine's answer and is not repeated here.
* ``convert_module`` turns each hand-written static spec into ``Static`` annotations, as a user
  adopting jaxrewrite would, wherever that is faithful, and records which parameters JAX made
  static before. That reading is this module's own (``SPECS``, ``read_spec``): JAX's rules,
  written from its signatures and ``jax._src.api_util.infer_argnums_and_argnames``, not from the
  engine's table, which only says which transform a use is.
* ``verify_module`` reads the rewritten text back with plain ``ast``, not with the engine, and
  checks every converted use now says exactly that, in both lists where the transform has two.
"""

from __future__ import annotations

import ast
import importlib.util
import io
import re
import tokenize
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from jaxrewrite.engine.analyze import Analysis, Use, UseKind, analyze
from jaxrewrite.engine.filters import EXHAUSTIVE
from jaxrewrite.engine.header import scan_header
from jaxrewrite.engine.keywords import MISSING, literal, literal_ints, literal_strs
from jaxrewrite.engine.signature import Kind, Param, Signature
from jaxrewrite.engine.source import Source
from jaxrewrite.errors import RewriteError

CORPUS_PACKAGES = ("jax", "jaxlib", "numpy")

PRAGMA = "# jaxrewrite: enable\n"

FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef)
Func = ast.FunctionDef | ast.AsyncFunctionDef
Edit = tuple[int, int, str]


def corpus_files() -> list[tuple[str, Path]]:
    """(package, path) of every .py file of the installed corpus packages, sorted."""
    found: set[tuple[str, Path]] = set()
    for package in CORPUS_PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        for root in spec.submodule_search_locations:
            found.update((package, path) for path in Path(root).rglob("*.py") if path.is_file())
    return sorted(found, key=lambda item: (item[0], str(item[1])))


def read_source(path: Path) -> str:
    """The text Python compiles for ``path`` (PEP 263 decoding, universal newlines)."""
    return importlib.util.decode_source(path.read_bytes())


# -- JAX's reading of a static spec ---------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """How one JAX transform takes static arguments."""

    name: str
    #: Keyword for static positions (read and written).
    argnums: str
    #: Keyword for static names, if the transform takes both lists and JAX infers one from the other.
    argnames: str | None = None
    #: A names keyword JAX reads but the engine never writes: its names become positions.
    names_as_positions: str | None = None
    donate: Spec | None = None

    @property
    def written(self) -> tuple[str, ...]:
        return (self.argnums,) if self.argnames is None else (self.argnums, self.argnames)

    @property
    def read(self) -> tuple[str, ...]:
        return self.written + ((self.names_as_positions,) if self.names_as_positions else ())


_DONATE = Spec("donation", "donate_argnums", "donate_argnames")
_NONDIFF = Spec("custom", "nondiff_argnums", names_as_positions="nondiff_argnames")
_CHECKPOINT = Spec("checkpoint", "static_argnums")

#: The engine's transform (a row of ``jaxrewrite.engine.table``, by name) -> how JAX reads it.
SPECS: dict[str, Spec] = {
    "jit": Spec("jit", "static_argnums", "static_argnames", donate=_DONATE),
    "pjit": Spec("pjit", "static_argnums", "static_argnames", donate=_DONATE),
    "pmap": Spec("pmap", "static_broadcasted_argnums", donate=Spec("donation", "donate_argnums")),
    "checkpoint": _CHECKPOINT,
    "remat": _CHECKPOINT,  # jax.remat is jax.checkpoint
    "custom_jvp": Spec("custom_jvp", _NONDIFF.argnums, names_as_positions=_NONDIFF.names_as_positions),
    "custom_vjp": Spec("custom_vjp", _NONDIFF.argnums, names_as_positions=_NONDIFF.names_as_positions),
}

#: Every keyword that makes an argument static for some transform: the text pre-filter.
STATIC_KEYWORDS = tuple(sorted({k for spec in SPECS.values() for k in spec.read}))


class Unfaithful(Exception):
    """The hand-written spec cannot be spelled as Static annotations without changing it."""


def _items(node: ast.expr | None, keyword: str, kind: type, src: Source) -> tuple | None:  # type: ignore[type-arg]
    """A literal int/str or sequence of them as a tuple; None when absent or ``None`` (JAX: not given)."""
    value = MISSING if node is None else literal(node)
    if node is None or value is None:
        return None
    if value is MISSING:
        raise Unfaithful(f"non-literal {keyword}")
    try:
        return (literal_ints if kind is int else literal_strs)(node, keyword, src)
    except RewriteError:
        raise Unfaithful(f"{keyword} is not a literal {kind.__name__} or sequence of them") from None


@dataclass(frozen=True)
class Reading:
    """What one spec makes static: by position and by keyword, as JAX reads it."""

    positions: frozenset[int]
    names: frozenset[str]
    notes: tuple[str, ...] = ()

    def params(self, sig: Signature) -> tuple[Param, ...]:
        return tuple(
            p for p in sig.params if (p.position is not None and p.position in self.positions) or p.name in self.names
        )


def _by_keyword(p: Param) -> bool:
    return p.kind is Kind.POSITIONAL_OR_KEYWORD or p.kind is Kind.KEYWORD_ONLY


def read_spec(sig: Signature, spec: Spec, keywords: dict[str, ast.expr], src: Source) -> Reading:
    """JAX's reading: the missing list is inferred from the other through positional-or-keyword
    parameters, both given are taken as they are, ``nondiff_argnames`` adds positions.

    Negative numbers count from the end of the positional parameters (JAX counts them from
    the end of each call's positional arguments: the same when all are passed).
    """
    notes: list[str] = []
    nums = _items(keywords.get(spec.argnums), spec.argnums, int, src)
    names_keyword = spec.argnames or spec.names_as_positions
    names = _items(keywords.get(names_keyword), names_keyword, str, src) if names_keyword else None
    n_pos = sig.n_positional
    var_kw = any(p.kind is Kind.VAR_KEYWORD for p in sig.params)
    named = {p.name: p for p in sig.params if p.kind not in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)}
    if nums is not None:
        fixed = []
        for i in nums:
            if i < 0:
                if sig.var_positional:
                    raise Unfaithful("negative argnums with *args")
                if i < -n_pos:
                    raise Unfaithful("argnums out of range")
                notes.append("negative argnums")
                i += n_pos
            if i >= n_pos:
                raise Unfaithful("static *args" if sig.var_positional else "argnums out of range")
            fixed.append(i)
        nums = tuple(fixed)
    for name in names or ():
        if name not in named:
            raise Unfaithful("static **kwargs entry" if var_kw else "argnames not in the signature")
        if named[name].kind is Kind.POSITIONAL_ONLY:
            raise Unfaithful("argnames names a positional-only parameter")
    if spec.argnames is None:  # positions only; names (nondiff_argnames) become positions
        for name in names or ():
            if named[name].kind is not Kind.POSITIONAL_OR_KEYWORD:
                raise Unfaithful(f"{names_keyword} names a keyword-only parameter (JAX ignores it)")
        positions = set(nums or ()) | {named[n].position for n in names or ()}
        return Reading(frozenset(positions), frozenset(), tuple(notes))  # type: ignore[arg-type]
    if nums is None and names is None:
        return Reading(frozenset(), frozenset(), tuple(notes))
    if nums is None:
        nums = tuple(p.position for p in sig.params if p.kind is Kind.POSITIONAL_OR_KEYWORD and p.name in names)  # type: ignore[operator]
    elif names is None:
        names = tuple(p.name for p in sig.params if p.kind is Kind.POSITIONAL_OR_KEYWORD and p.position in nums)
    return Reading(frozenset(nums), frozenset(names), tuple(notes))  # type: ignore[arg-type]


# -- the engine's uses that spell static arguments by hand ----------------------------------------


@dataclass
class Found:
    """One transform use (decorator or call site) that spells static arguments by hand, and what became of it."""

    use: Use
    spec: Spec
    skip: str | None = None
    #: Static parameters, and the lists the engine must write for them.
    static: tuple[str, ...] = ()
    nums: tuple[int, ...] = ()
    names: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: A call site: how many calls of the same transform on the same function start before it on its line.
    line_index: int = 0
    #: How the engine spelled the rewritten use (set by verification).
    form: str = ""

    @property
    def func(self) -> Func:
        return self.use.target  # type: ignore[return-value]

    @property
    def call(self) -> ast.Call:
        return self.use.node  # type: ignore[return-value]

    @property
    def deco_index(self) -> int:
        return next(i for i, deco in enumerate(self.func.decorator_list) if deco is self.use.node)

    @property
    def kind(self) -> str:
        return "decorator" if self.use.kind is UseKind.DECORATOR else "call site"


@dataclass
class Module:
    """One module: its text, the engine's analysis, and the uses that write a static keyword."""

    source: str
    analysis: Analysis
    specs: list[tuple[Use, Spec]]


def read_module(source: str, filename: str = "<corpus>") -> Module | None:
    """The engine's analysis of ``source``; None when no use writes a static keyword (or it does not parse)."""
    try:
        analysis = analyze(source, filename, filters=EXHAUSTIVE, require_pragma=False)
    except SyntaxError:
        return None  # counted by the byte-identical test
    specs = []
    for use in analysis.uses:
        spec = SPECS.get(use.transform.name)
        if spec is not None and use.signature is not None and any(kw.arg in spec.read for kw in use.written):
            specs.append((use, spec))
    specs.sort(key=lambda item: (item[0].node.lineno, item[0].node.col_offset))
    return Module(source, analysis, specs) if specs else None


def _classify(found: Found) -> Found:
    """What about the use itself keeps it from being converted (its keywords are deleted where written)."""
    use, call = found.use, found.use.node
    own = {id(kw) for kw in call.keywords} if isinstance(call, ast.Call) else set()
    for kw in use.written:
        if kw.arg in found.spec.read and id(kw) not in own:
            local = any(kw is mine for mine in use.local)
            found.skip = "static spec passed by position" if local else "static keywords bound where the transform is named"
            return found
    if use.kind is UseKind.CALL and not isinstance(use.node.args[0], ast.Name):  # type: ignore[attr-defined]
        found.skip = "function passed through a call (the spec is about what that returns)"
    return found


def _plan_function(group: list[Found], others: list[Use], src: Source) -> bool:
    """Plan every static spec on one def; all are converted, or none (each ``skip`` says why)."""
    func = group[0].func
    sig = group[0].use.signature
    assert sig is not None
    readings: list[Reading] = []
    try:
        if any(f.skip for f in group):
            raise Unfaithful("stacked with a static spec that cannot be converted")
        for found in group:
            readings.append(_plan_one(found, sig, src))
        if len({r.params(sig) for r in readings}) > 1:
            raise Unfaithful("stacked transforms disagree on what is static")
        static = readings[0].params(sig)
        for use in sorted(others, key=lambda u: u.kind is UseKind.CALL):
            if not _vmap_leaves_static(use, static):
                if use.kind is UseKind.DECORATOR:
                    raise Unfaithful("stacked with a transform that would get Static keywords too")
                raise Unfaithful(f"also passed to a {use.transform.name} call in the module (would be rewritten too)")
    except Unfaithful as why:
        for found in group:
            found.skip = found.skip or str(why)
        return False
    for found, reading in zip(group, readings):
        params = reading.params(sig)
        found.static = tuple(p.name for p in params)
        found.nums = tuple(sorted(p.position for p in params if p.position is not None))
        found.names = tuple(p.name for p in params if _by_keyword(p)) if found.spec.argnames else ()
        notes = list(reading.notes)
        if len(group) > 1:
            notes.append("stacked static specs")
        if found.use.kind is UseKind.DECORATOR and found.deco_index != len(func.decorator_list) - 1:
            notes.append("decorators below the transform")
        found.notes = tuple(notes)
    return True


def _plan_one(found: Found, sig: Signature, src: Source) -> Reading:
    spec = found.spec
    if any(kw.arg is None for kw in found.use.written):
        raise Unfaithful("**kwargs where the spec is written")
    keywords = {kw.arg: kw.value for kw in found.use.written if kw.arg is not None}
    reading = read_spec(sig, spec, keywords, src)
    params = reading.params(sig)
    if not params:
        raise Unfaithful("empty static spec")
    for p in params:
        if spec.argnames is not None:
            if p.position is not None and p.position not in reading.positions:
                raise Unfaithful("static only when passed by keyword")
            if _by_keyword(p) and p.name not in reading.names:
                raise Unfaithful("static only when passed by position")
    if spec.donate is not None:
        donate_keys = [k for k in spec.donate.read if k in keywords]
        if any(literal(keywords[k]) is MISSING for k in donate_keys):
            return Reading(reading.positions, reading.names, reading.notes + ("non-literal donation",))
        try:
            donated = read_spec(sig, spec.donate, keywords, src).params(sig)
        except Unfaithful:  # a donation JAX would reject anyway: not this test's business
            return Reading(reading.positions, reading.names, reading.notes + ("donation not understood",))
        if set(donated) & set(params):
            raise Unfaithful("static and donated")
    return reading


def _vmap_leaves_static(use: Use, static: tuple[Param, ...]) -> bool:
    """A ``vmap`` whose literal ``in_axes`` has None at every static position is left alone."""
    if use.transform.name != "vmap":
        return False
    axes = next((kw.value for kw in reversed(use.written) if kw.arg == "in_axes"), None)
    if not isinstance(axes, (ast.Tuple, ast.List)):
        return False
    for p in static:
        if p.position is None or p.position >= len(axes.elts):
            return False
        entry = axes.elts[p.position]
        if not (isinstance(entry, ast.Constant) and entry.value is None):
            return False
    return True


# -- converting -----------------------------------------------------------------------------------

_EOL = re.compile(r"\r\n|\r|\n")


def _blank(src: Source, start: int, end: int) -> Edit:
    """Delete ``[start, end)`` but keep its line breaks (inside brackets they are free)."""
    return (start, end, "\n" * len(_EOL.findall(src.text, start, end)))


def _use_edits(found: Found, src: Source) -> list[Edit]:
    """Delete the static keywords; a one-line decorator left with nothing else becomes the bare transform."""
    call, spec, use = found.call, found.spec, found.use
    items: list[ast.AST] = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))  # type: ignore[attr-defined]
    kept = [not isinstance(n, ast.keyword) or n.arg not in spec.read for n in items]
    rest = [n for n, k in zip(items, kept) if k]
    if use.kind is UseKind.DECORATOR and call.lineno == call.end_lineno:
        transform = call.func if use.factory else call.args[0]  # ``jit(...)`` or ``partial(jit, ...)``
        if rest == ([] if use.factory else [transform]):
            # ``@partial(jit, static_argnums=1)`` / ``@jit(static_argnums=1)`` -> ``@jit``
            return [(src.start(call), src.end(call), src.segment(transform))]
    if not rest:  # ``@jit(\n    static_argnames=...)`` -> ``@jit(\n)``
        return [_blank(src, src.start(items[0]), src.end(call) - 1)]
    first = kept.index(True)
    edits = []
    if first > 0:  # leading keywords go with the separator after them
        edits.append(_blank(src, src.start(items[0]), src.start(items[first])))
    for index in range(first + 1, len(items)):
        if not kept[index]:  # later ones go with the separator before them
            edits.append(_blank(src, src.end(items[index - 1]), src.end(items[index])))
    merged: list[Edit] = []
    for start, end, new in edits:  # consecutive deletions touch: one edit each run
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end, merged[-1][2] + new)
        else:
            merged.append((start, end, new))
    return merged


def _annotation_edits(sig: Signature, static: tuple[str, ...], src: Source, marker: str) -> list[Edit]:
    """``x`` -> ``x: Static``, ``x: int`` -> ``x: Static[int]``, ``x: "int"`` -> ``x: Static["int"]``."""
    by_name = {p.name: p.node for p in sig.params}
    edits = []
    for name in static:
        arg = by_name[name]
        if arg.annotation is None:
            edits.append((src.end(arg), src.end(arg), f": {marker}"))
        else:
            edits.append((src.start(arg.annotation), src.start(arg.annotation), f"{marker}["))
            edits.append((src.end(arg.annotation), src.end(arg.annotation), "]"))
    return edits


@dataclass
class Converted:
    """A converted module, its uses to verify, and what was left alone."""

    text: str
    converted: list[Found]
    skipped: list[Found]
    #: Lines inserted before the first ordinary statement (pragma and import): later lines move down.
    shift: int = 0
    first_moved_line: int = 1
    #: Lines (converted numbering) the engine may change: those of the converted uses.
    use_lines: frozenset[int] = frozenset()

    def new_line(self, lineno: int) -> int:
        return lineno + (self.shift if lineno >= self.first_moved_line else 0)


_SKIPPED_TOKENS = (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT)


def header_end(source: str) -> tuple[int, int] | None:
    """(line, column) where the first statement that is neither the docstring nor a ``from
    __future__`` import starts (its first decorator, for a def); None: there is none.

    Tokenizes the header only, not the module (the engine's analysis has its own tree).
    """
    statement: list[tokenize.TokenInfo] = []
    first = True
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in _SKIPPED_TOKENS:
            continue
        if tok.type == tokenize.ENDMARKER:
            return None
        if tok.type != tokenize.NEWLINE and tok.string != ";":
            statement.append(tok)
            continue
        if not statement:  # the NEWLINE after a trailing ``;``
            continue
        docstring = first and all(t.type == tokenize.STRING for t in statement)
        future = [t.string for t in statement[:2]] == ["from", "__future__"]
        if not (docstring or future):
            return statement[0].start
        first, statement = False, []
    return None


def convert_module(module: Module, merge: bool = False) -> Converted:
    """Static annotations instead of hand-written static keywords, wherever that is faithful.

    The pragma and the import go on two new lines right before the first ordinary statement
    (so the pragma is in the header); every later line moves down by two, nothing else moves:
    deleted keywords leave their line breaks behind.

    With ``merge``, the uses stay exactly as written and only the first static parameter of
    each function is annotated: the engine must complete the user's lists.
    """
    source, src = module.source, module.analysis.source
    candidates = [_classify(Found(use, spec)) for use, spec in module.specs]
    by_func: dict[int, list[Found]] = {}
    for found in candidates:
        by_func.setdefault(id(found.func), []).append(found)
    mine = {id(found.use) for found in candidates}
    others: dict[int, list[Use]] = {}
    for use in module.analysis.uses:
        if id(use.target) in by_func and id(use) not in mine:
            others.setdefault(id(use.target), []).append(use)
    marker = "_JrStatic" if re.search(r"\bStatic\b", source) else "Static"
    converted: list[Found] = []
    edits: list[Edit] = []
    for key, group in by_func.items():
        if _plan_function(group, others.get(key, []), src):
            converted.extend(group)
            if not merge:
                for found in group:
                    edits.extend(_use_edits(found, src))
            static = group[0].static
            edits.extend(_annotation_edits(group[0].use.signature, static[:1] if merge else static, src, marker))  # type: ignore[arg-type]
    skipped = [f for f in candidates if f.skip is not None]
    converted.sort(key=lambda f: (f.call.lineno, f.call.col_offset))
    first = header_end(source) if converted else None
    if first is None:
        return Converted(source, [], skipped)
    line, column = first
    if column != 0:  # ``from __future__ import x; import y``: no line to go before
        for found in converted:
            found.skip = "module header shares a line with code"
        return Converted(source, [], skipped + converted)
    calls = [use.node for use in module.analysis.uses if isinstance(use.node, ast.Call) and use.kind is UseKind.CALL]
    for found in converted:
        if found.use.kind is UseKind.CALL:
            call, same = found.call, _same_call(found.call)
            before = [c for c in calls if c.lineno == call.lineno and c.col_offset < call.col_offset]
            found.line_index = sum(_same_call(c) == same for c in before)
    at = src.line_starts[line - 1]
    importing = "from jaxrewrite import Static" + (f" as {marker}" if marker != "Static" else "")
    edits.append((at, at, f"{PRAGMA}{importing}\n"))
    out = source
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:start] + new + out[end:]
    conv = Converted(out, converted, skipped, 2, line)
    conv.use_lines = frozenset(
        conv.new_line(n) for f in converted for n in range(f.call.lineno, f.call.end_lineno + 1)  # type: ignore[operator]
    )
    return conv


# -- reading the rewritten uses back (plain ast, not the engine) ----------------------------------


def nodes_at(tree: ast.AST, line: int) -> list[ast.AST]:
    """The nodes that start on ``line``, by column: a descent into the nodes spanning it only."""
    found: list[ast.AST] = []
    stack = [tree]
    while stack:
        for child in ast.iter_child_nodes(stack.pop()):
            end = getattr(child, "end_lineno", None)
            if end is None:  # ``arguments``, ``comprehension``, operators: no position of their own
                stack.append(child)
                continue
            decorators = getattr(child, "decorator_list", None)
            first = decorators[0].lineno if decorators else child.lineno  # type: ignore[attr-defined]
            if first <= line <= end:
                if child.lineno == line:  # type: ignore[attr-defined]
                    found.append(child)
                stack.append(child)
    found.sort(key=lambda n: n.col_offset)  # type: ignore[attr-defined]
    return found


def _same_call(call: ast.Call) -> tuple[str, str]:
    """What tells a call site from the other calls on its line: the transform and the function."""
    return ast.dump(call.func), ast.dump(call.args[0])


def _is_partial_wrapper(expr: ast.expr) -> bool:
    """The hook's wrapper for a bare transform: ``__import__('functools').partial(T, ...)``."""
    return isinstance(expr, ast.Call) and ast.unparse(expr.func) == "__import__('functools').partial"


def _keywords(expr: ast.expr) -> dict[str, ast.expr] | None:
    """Keywords of ``partial(T, ...)``, ``T(...)``, ``T(f, ...)`` or the hook's
    ``__import__('functools').partial(T, ...)``."""
    if not isinstance(expr, ast.Call):
        return None
    return {kw.arg: kw.value for kw in expr.keywords if kw.arg is not None}


def _param_names(func: Func) -> list[str]:
    a = func.args
    extra = [a.vararg] if a.vararg else []
    return [arg.arg for arg in [*a.posonlyargs, *a.args, *extra, *a.kwonlyargs, *([a.kwarg] if a.kwarg else [])]]


def verify_module(conv: Converted, output: str, where: str = "<output>") -> Iterator[tuple[Found, str | None]]:
    """(use, problem or None) for each converted use, read from the rewritten text."""
    tree = ast.parse(output)
    src = Source(output, where)
    for found in conv.converted:
        yield found, verify_use(found, conv, tree, src)


def verify_use(found: Found, conv: Converted, tree: ast.Module, src: Source) -> str | None:
    spec, sig = found.spec, found.use.signature
    assert sig is not None
    line = conv.new_line(found.func.lineno)
    node = next((n for n in nodes_at(tree, line) if isinstance(n, FunctionNode) and n.name == found.func.name), None)
    if node is None:
        return "def not found at its line in the output"
    if _param_names(node) != [p.name for p in sig.params]:
        return f"parameters {_param_names(node)}, expected {[p.name for p in sig.params]}"
    if found.use.kind is UseKind.DECORATOR:
        expr: ast.expr = node.decorator_list[found.deco_index]
        found.form = "partial wrapper" if _is_partial_wrapper(expr) else "completed in place"
    else:
        same = _same_call(found.call)
        calls = [n for n in nodes_at(tree, conv.new_line(found.call.lineno)) if isinstance(n, ast.Call) and n.args and _same_call(n) == same]
        if found.line_index >= len(calls):
            return "call site not found at its line in the output"
        call = calls[found.line_index]
        found.form = "completed in place"
        if [ast.dump(a) for a in call.args] != [ast.dump(a) for a in found.call.args]:
            return f"call site's positional arguments changed: {ast.unparse(call)}"
        expr = call
    keywords = _keywords(expr)
    if keywords is None:
        return f"use not rewritten into a call: {ast.unparse(expr)}"
    missing = [k for k in spec.written if k not in keywords]
    if missing:
        return f"{ast.unparse(expr)} lacks {missing}"
    # The lists themselves: positions ascending, names in signature order (a literal already
    # right may stay as written, a list say). A kept ``nondiff_argnames`` adds positions of its own.
    try:
        nums = tuple(_items(keywords[spec.argnums], spec.argnums, int, src) or ())
        names = tuple(_items(keywords[spec.argnames], spec.argnames, str, src) or ()) if spec.argnames else ()
        reading = read_spec(sig, spec, keywords, src)
    except Unfaithful as why:
        return f"rewritten spec unreadable: {why}"
    if nums != found.nums and not (spec.names_as_positions and spec.names_as_positions in keywords):
        return f"{spec.argnums}={nums!r}, expected {found.nums!r}"
    if spec.argnames is not None and names != found.names:
        return f"{spec.argnames}={names!r}, expected {found.names!r}"
    # Read back through JAX's rules: the same parameters as the hand-written spec ...
    back = tuple(p.name for p in reading.params(sig))
    if back != found.static:
        return f"static parameters {back!r}, expected {found.static!r}"
    # ... each positional-or-keyword one in both lists ...
    for p in reading.params(sig):
        if spec.argnames is not None and p.kind is Kind.POSITIONAL_OR_KEYWORD and (p.position not in reading.positions or p.name not in reading.names):
            return f"positional-or-keyword {p.name!r} is not in both lists"
    # ... and every other keyword the user wrote still there, as written.
    before = {kw.arg: ast.dump(kw.value) for kw in found.call.keywords if kw.arg not in spec.read}
    after = {k: ast.dump(v) for k, v in keywords.items() if k not in spec.read}
    if before != after:
        return f"other keywords changed: {sorted(map(str, before))} -> {sorted(map(str, after))}"
    return None


# -- the whole corpus ----------------------------------------------------------------------------


@dataclass
class CorpusRun:
    """What converting the corpus found: counts, and every problem as a readable line."""

    files_with_specs: int = 0
    files_converted: int = 0
    functions: int = 0
    uses: int = 0
    verified: int = 0
    functions_verified: int = 0
    #: The same functions with the uses kept as written and one parameter annotated.
    merge_verified: int = 0
    by_transform: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    by_kind: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    forms: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    notes: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    skipped: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    problems: list[str] = field(default_factory=list)
    #: (path, converted module, rewritten text) of each converted module.
    modules: list[tuple[Path, Converted, str]] = field(default_factory=list)


def changed_lines(before: str, after: str) -> list[int] | None:
    """1-based lines that differ, or None when the line counts differ (lines moved)."""
    a, b = before.split("\n"), after.split("\n")
    if len(a) != len(b):
        return None
    return [n for n, (x, y) in enumerate(zip(a, b), 1) if x != y]


def check_rewrite(conv: Converted, rewrite: Callable[[str, str], str], where: str, problems: list[str]) -> tuple[str | None, list[Found]]:
    """Rewrite a converted module and read it back: (output, the uses that verified)."""
    if not scan_header(conv.text).enabled:
        problems.append(f"{where}: the converted module does not opt in (converter bug)")
        return None, []
    try:
        output = rewrite(conv.text, where)
    except SyntaxError as error:  # RewriteError included: a faithful conversion must rewrite
        problems.append(f"{where}: rewrite_source raised {type(error).__name__}: {error}")
        return None, []
    lines = changed_lines(conv.text, output)
    if lines is None:
        problems.append(f"{where}: the rewrite moved lines")
        return output, []
    stray = [n for n in lines if n not in conv.use_lines]
    if stray:
        problems.append(f"{where}: lines {stray[:5]} changed outside the converted uses")
    good = []
    for found, problem in verify_module(conv, output, where):
        if problem is None:
            good.append(found)
        else:
            problems.append(f"{where}:{found.call.lineno} {found.func.name} ({found.kind}): {problem}")
    return output, good


def convert_corpus(files: list[tuple[str, Path]], rewrite: Callable[[str, str], str]) -> CorpusRun:
    """Convert every hand-written static spec of ``files``, rewrite, and read the result back."""
    run = CorpusRun()
    for _, path in files:
        source = read_source(path)
        if not any(keyword in source for keyword in STATIC_KEYWORDS):
            continue
        module = read_module(source, str(path))
        if module is None:
            continue
        run.files_with_specs += 1
        conv = convert_module(module)
        run.skipped.update(found.skip or "?" for found in conv.skipped)
        if not conv.converted:
            continue
        run.files_converted += 1
        run.uses += len(conv.converted)
        run.functions += len({id(f.func) for f in conv.converted})
        run.by_transform.update(f.spec.name for f in conv.converted)
        run.by_kind.update(f.kind for f in conv.converted)
        run.notes.update(note for f in conv.converted for note in f.notes)
        output, good = check_rewrite(conv, rewrite, str(path), run.problems)
        if output is not None:
            run.modules.append((path, conv, output))
        run.verified += len(good)
        run.forms.update(f.form for f in good)
        passed = {id(f) for f in good}
        failed = {id(f.func) for f in conv.converted if id(f) not in passed}
        run.functions_verified += len({id(f.func) for f in conv.converted} - failed)
        _, good = check_rewrite(convert_module(module, merge=True), rewrite, f"{path} (merge)", run.problems)
        run.merge_verified += len(good)
    return run
