"""The real-code corpus: the installed jax, jaxlib and numpy sources, read and converted by AST.

Used by ``tests/test_corpus.py``:

* ``corpus_files`` lists every ``.py`` file of the installed packages, sorted.
* ``convert_module`` turns functions whose decorators spell static arguments by hand
  (``@partial(jit, static_argnums=...)``, ``@api.jit(static_argnames=...)``,
  ``@partial(custom_vjp, nondiff_argnums=...)``, ...) into ``Static`` annotations, as a
  user adopting jaxrewrite would, and records which parameters JAX made static before,
  normalised through the def's signature the way JAX does
  (``jax._src.api_util.infer_argnums_and_argnames``).
* ``verify_module`` reads the rewritten text back and checks every such decorator now says
  exactly that, in both lists where the transform has two.

Names are resolved the way Python would: imports and plain aliases (``from jax._src.api
import jit``, ``from jax._src import api``, ``import jax``, ``partial = functools.partial``)
in the scopes a decorator can see. What a name denotes is decided by importing it and
comparing it with ``jax.jit`` & co, never by its spelling.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from jaxrewrite.engine.source import Source

CORPUS_PACKAGES = ("jax", "jaxlib", "numpy")

PRAGMA = "# jaxrewrite: enable\n"

FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef)
Func = ast.FunctionDef | ast.AsyncFunctionDef


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


# -- transforms: how each takes static arguments ------------------------------------------------


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

#: jax.<attribute> -> its spec; the objects themselves are compared, not the names.
SPECS: dict[str, Spec] = {
    "jit": Spec("jit", "static_argnums", "static_argnames", donate=_DONATE),
    "experimental.pjit.pjit": Spec("pjit", "static_argnums", "static_argnames", donate=_DONATE),
    "pmap": Spec("pmap", "static_broadcasted_argnums", donate=Spec("donation", "donate_argnums")),
    "checkpoint": Spec("checkpoint", "static_argnums"),
    "custom_jvp": Spec("custom_jvp", _NONDIFF.argnums, names_as_positions=_NONDIFF.names_as_positions),
    "custom_vjp": Spec("custom_vjp", _NONDIFF.argnums, names_as_positions=_NONDIFF.names_as_positions),
}

#: Every keyword that makes an argument static for some transform: the text pre-filter.
STATIC_KEYWORDS = tuple(sorted({k for spec in SPECS.values() for k in spec.read}))

#: What the engine recognises (the last segment of a name rooted at ``jax``, see
#: ``jaxrewrite.engine.table``) and the keywords it then writes.
ENGINE_KEYWORDS: dict[str, tuple[str, ...]] = {
    "jit": ("static_argnums", "static_argnames"),
    "pjit": ("static_argnums", "static_argnames"),
    "pmap": ("static_broadcasted_argnums",),
    "custom_vjp": ("nondiff_argnums",),
    "custom_jvp": ("nondiff_argnums",),
    "checkpoint": ("static_argnums",),
    "remat": ("static_argnums",),
    "vmap": ("in_axes",),
}


def engine_name(qualname: str | None) -> str | None:
    if not qualname:
        return None
    root, _, rest = qualname.partition(".")
    if root != "jax" or not rest:
        return None
    last = rest.rpartition(".")[2]
    return last if last in ENGINE_KEYWORDS else None


class Denoter:
    """What a dotted name is at run time: one of ``SPECS`` or None. Imports (jax) lazily."""

    def __init__(self) -> None:
        self._cache: dict[str, Spec | None] = {}
        self._objects: dict[int, Spec] | None = None

    def spec(self, qualname: str | None) -> Spec | None:
        if engine_name(qualname) is None:  # only names the engine may take for a transform
            return None
        assert qualname is not None
        if self._objects is None:
            self._objects = {}
            for attribute, spec in SPECS.items():
                obj = _lookup(f"jax.{attribute}")
                if obj is not None:
                    self._objects[id(obj)] = spec
        if qualname not in self._cache:
            obj = _lookup(qualname)
            self._cache[qualname] = None if obj is None else self._objects.get(id(obj))
        return self._cache[qualname]


def _lookup(qualname: str) -> object | None:
    parts = qualname.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # noqa: BLE001, S112 - a module that cannot be imported here: unknown
            continue
        try:
            with warnings.catch_warnings():  # jax.experimental.pjit.pjit is deprecated, say
                warnings.simplefilter("ignore")
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


# -- scopes: what a decorator can see ------------------------------------------------------------

_CONFLICT = "<bound otherwise>"
Binding = str | ast.expr  # a dotted import name, _CONFLICT, or an alias expression
#: Scopes a statement's names are looked up in, innermost first, the module last.
Chain = tuple[ast.AST, ...]

_BODIES = ("body", "orelse", "finalbody")


def statements(tree: ast.Module) -> Iterator[tuple[ast.stmt, Chain]]:
    """Every statement with the scopes its expressions see (class bodies only when innermost).

    Walks statements only, never into expressions: a def or class is always a statement.
    """

    def visit(body: list[ast.stmt], chain: Chain) -> Iterator[tuple[ast.stmt, Chain]]:
        for stmt in body:
            yield stmt, chain
            if isinstance(stmt, (*FunctionNode, ast.ClassDef)):
                yield from visit(stmt.body, (stmt, *(s for s in chain if not isinstance(s, ast.ClassDef))))
                continue
            for name in _BODIES:
                yield from visit(getattr(stmt, name, None) or [], chain)
            for handler in getattr(stmt, "handlers", None) or []:
                yield from visit(handler.body, chain)
            for case in getattr(stmt, "cases", None) or []:
                yield from visit(case.body, chain)

    yield from visit(tree.body, (tree,))


def _scope_bindings(body: list[ast.stmt], params: ast.arguments | None = None) -> dict[str, Binding]:
    """Names one scope binds: imports by dotted name, ``x = a.b`` as an alias, anything else _CONFLICT.

    Statements only (a name bound inside an expression, by ``:=``, is not looked for).
    """
    out: dict[str, Binding] = {}

    def bind(name: str, value: Binding) -> None:
        if name in out and out[name] is not value and out[name] != value:
            value = _CONFLICT
        out[name] = value

    def targets(node: ast.AST | None) -> None:
        if node is not None:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name):
                    bind(sub.id, _CONFLICT)

    if params is not None:
        for arg in [*params.posonlyargs, *params.args, params.vararg, *params.kwonlyargs, params.kwarg]:
            if arg is not None:
                bind(arg.arg, _CONFLICT)

    def visit(stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    root = alias.name.partition(".")[0]
                    bind(alias.asname or root, alias.name if alias.asname else root)
            elif isinstance(stmt, ast.ImportFrom):
                for alias in stmt.names:
                    if alias.name != "*":
                        name = f"{stmt.module}.{alias.name}" if stmt.level == 0 else _CONFLICT
                        bind(alias.asname or alias.name, name)
            elif isinstance(stmt, (*FunctionNode, ast.ClassDef)):
                bind(stmt.name, _CONFLICT)
                continue  # its body is another scope
            elif isinstance(stmt, ast.Assign):
                if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, (ast.Name, ast.Attribute)):
                    bind(stmt.targets[0].id, stmt.value)
                else:
                    for target in stmt.targets:
                        targets(target)
            elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
                targets(stmt.target)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    targets(item.optional_vars)
            elif isinstance(stmt, ast.Delete):
                for target in stmt.targets:
                    targets(target)
            elif isinstance(stmt, (ast.Global, ast.Nonlocal)):
                for name in stmt.names:
                    bind(name, _CONFLICT)
            for name in _BODIES:
                visit(getattr(stmt, name, None) or [])
            for handler in getattr(stmt, "handlers", None) or []:
                if handler.name:
                    bind(handler.name, _CONFLICT)
                visit(handler.body)
            for case in getattr(stmt, "cases", None) or []:
                visit(case.body)

    visit(body)
    return out


class Scopes:
    """The bindings of the scopes of one module, computed when first needed."""

    def __init__(self) -> None:
        self._bindings: dict[int, dict[str, Binding]] = {}

    def _scope(self, scope: ast.AST) -> dict[str, Binding]:
        key = id(scope)
        if key not in self._bindings:
            params = scope.args if isinstance(scope, FunctionNode) else None
            self._bindings[key] = _scope_bindings(scope.body, params)  # type: ignore[attr-defined]
        return self._bindings[key]

    def qualname(self, expr: ast.expr, chain: Chain, depth: int = 0) -> str | None:
        """The dotted import name ``expr`` denotes, looked up along ``chain``, if any."""
        if depth > 32:
            return None
        if isinstance(expr, ast.Attribute):
            base = self.qualname(expr.value, chain, depth + 1)
            return None if base is None else f"{base}.{expr.attr}"
        if not isinstance(expr, ast.Name):
            return None
        for index, scope in enumerate(chain):
            bound = self._scope(scope).get(expr.id)
            if bound is None:
                continue
            if isinstance(bound, ast.expr):
                return self.qualname(bound, chain[index:], depth + 1)
            return None if bound == _CONFLICT else bound
        return None


# -- JAX's reading of a static spec ---------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "posonly", "pos_or_kw", "var_pos", "kwonly", "var_kw"
    position: int | None

    @property
    def by_keyword(self) -> bool:
        return self.kind in ("pos_or_kw", "kwonly")


def signature(func: Func) -> list[Param]:
    a = func.args
    out: list[Param] = []
    for kind, group in (("posonly", a.posonlyargs), ("pos_or_kw", a.args)):
        for arg in group:
            out.append(Param(arg.arg, kind, len(out)))
    if a.vararg:
        out.append(Param(a.vararg.arg, "var_pos", None))
    out.extend(Param(arg.arg, "kwonly", None) for arg in a.kwonlyargs)
    if a.kwarg:
        out.append(Param(a.kwarg.arg, "var_kw", None))
    return out


class Unfaithful(Exception):
    """The hand-written spec cannot be spelled as Static annotations without changing it."""


_MISSING = object()


def _literal(node: ast.expr | None) -> object:
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _MISSING


def _items(node: ast.expr | None, keyword: str, kind: type) -> tuple | None:  # type: ignore[type-arg]
    value = _literal(node)
    if value is _MISSING:
        raise Unfaithful(f"non-literal {keyword}")
    if value is None:
        return None
    items = (value,) if isinstance(value, kind) else value
    if not isinstance(items, (tuple, list)) or not all(isinstance(i, kind) and not isinstance(i, bool) for i in items):
        raise Unfaithful(f"{keyword} is not a literal {kind.__name__} or sequence of them")
    return tuple(items)


@dataclass(frozen=True)
class Reading:
    """What one decorator makes static: by position and by keyword, as JAX reads it."""

    positions: frozenset[int]
    names: frozenset[str]
    notes: tuple[str, ...] = ()

    def params(self, sig: list[Param]) -> tuple[Param, ...]:
        return tuple(p for p in sig if (p.position is not None and p.position in self.positions) or p.name in self.names)


def read_spec(sig: list[Param], spec: Spec, keywords: dict[str, ast.expr]) -> Reading:
    """JAX's reading: the missing list is inferred from the other through positional-or-keyword
    parameters, both given are taken as they are, ``nondiff_argnames`` adds positions.

    Negative numbers count from the end of the positional parameters (JAX counts them from
    the end of each call's positional arguments: the same when all are passed).
    """
    notes: list[str] = []
    nums = _items(keywords.get(spec.argnums), spec.argnums, int)
    names_keyword = spec.argnames or spec.names_as_positions
    names = _items(keywords.get(names_keyword), names_keyword, str) if names_keyword else None
    n_pos = sum(1 for p in sig if p.position is not None)
    var_pos = any(p.kind == "var_pos" for p in sig)
    var_kw = any(p.kind == "var_kw" for p in sig)
    named = {p.name: p for p in sig if p.kind not in ("var_pos", "var_kw")}
    if nums is not None:
        fixed = []
        for i in nums:
            if i < 0:
                if var_pos:
                    raise Unfaithful("negative argnums with *args")
                if i < -n_pos:
                    raise Unfaithful("argnums out of range")
                notes.append("negative argnums")
                i += n_pos
            if i >= n_pos:
                raise Unfaithful("static *args" if var_pos else "argnums out of range")
            fixed.append(i)
        nums = tuple(fixed)
    for name in names or ():
        if name not in named:
            raise Unfaithful("static **kwargs entry" if var_kw else "argnames not in the signature")
        if named[name].kind == "posonly":
            raise Unfaithful("argnames names a positional-only parameter")
    if spec.argnames is None:  # positions only; names (nondiff_argnames) become positions
        for name in names or ():
            if named[name].kind != "pos_or_kw":
                raise Unfaithful(f"{names_keyword} names a keyword-only parameter (JAX ignores it)")
        positions = set(nums or ()) | {named[n].position for n in names or ()}
        return Reading(frozenset(positions), frozenset(), tuple(notes))  # type: ignore[arg-type]
    if nums is None and names is None:
        return Reading(frozenset(), frozenset(), tuple(notes))
    if nums is None:
        nums = tuple(p.position for p in sig if p.kind == "pos_or_kw" and p.name in names)  # type: ignore[operator]
    elif names is None:
        names = tuple(p.name for p in sig if p.kind == "pos_or_kw" and p.position in nums)
    return Reading(frozenset(nums), frozenset(names), tuple(notes))  # type: ignore[arg-type]


# -- finding and converting -----------------------------------------------------------------------


@dataclass
class Found:
    """One decorator that spells static arguments by hand, and what became of it."""

    func: Func
    deco_index: int
    call: ast.Call
    #: Where the decorator is evaluated.
    chain: Chain
    spec: Spec | None = None
    transform: ast.expr | None = None
    skip: str | None = None
    #: Static parameters, and the lists the engine must write for them.
    static: tuple[str, ...] = ()
    nums: tuple[int, ...] = ()
    names: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: How the engine spelled the rewritten decorator (set by verification).
    form: str = ""


def find_static_decorators(tree: ast.Module, scopes: Scopes, denoter: Denoter) -> list[Found]:
    """Every decorator call passing a static keyword, classified (``skip`` says why one cannot be converted)."""
    found: list[Found] = []
    wanted = set(STATIC_KEYWORDS)
    for node, chain in statements(tree):
        if isinstance(node, FunctionNode):
            for index, deco in enumerate(node.decorator_list):
                if isinstance(deco, ast.Call) and {kw.arg for kw in deco.keywords} & wanted:
                    found.append(_classify(Found(node, index, deco, chain), scopes, denoter))
    found.sort(key=lambda f: (f.func.lineno, f.deco_index))
    return found


def _classify(found: Found, scopes: Scopes, denoter: Denoter) -> Found:
    call = found.call
    if scopes.qualname(call.func, found.chain) == "functools.partial":
        if len(call.args) != 1 or isinstance(call.args[0], ast.Starred):
            found.skip = "partial with other positional arguments"
            return found
        found.transform = call.args[0]
    elif call.args:
        found.skip = "decorator call with positional arguments"
        return found
    else:
        found.transform = call.func
    if not isinstance(found.transform, (ast.Name, ast.Attribute)):
        found.skip = "transform is not a (dotted) name"
        return found
    qual = scopes.qualname(found.transform, found.chain)
    found.spec = denoter.spec(qual)
    found.notes = (qual or ast.unparse(found.transform),)
    if found.spec is None:
        if qual is None:
            found.skip = "transform name not imported from an absolute module"
        elif engine_name(qual) is None:
            found.skip = "not a jax transform"
        else:
            found.skip = "named like a jax transform but is another object"
    elif ENGINE_KEYWORDS[engine_name(qual) or ""] != found.spec.written:
        found.skip = "the engine takes this name for another transform"
    return found


@dataclass
class Converted:
    """A converted module, its functions to verify, and what was left alone."""

    text: str
    converted: list[Found]
    skipped: list[Found]
    #: Lines inserted before the first ordinary statement (pragma and import): later lines move down.
    shift: int = 0
    first_moved_line: int = 1
    #: Lines (converted numbering) the engine may change: the converted decorators.
    decorator_lines: frozenset[int] = frozenset()

    def new_line(self, lineno: int) -> int:
        return lineno + (self.shift if lineno >= self.first_moved_line else 0)


class Text(Source):
    """AST positions to string offsets (jaxrewrite's own Source), plus line-keeping deletion."""

    EOL = re.compile(r"\r\n|\r|\n")

    def __init__(self, text: str) -> None:
        super().__init__(text, "<corpus>")

    def blank(self, start: int, end: int) -> tuple[int, int, str]:
        """Delete ``[start, end)`` but keep its line breaks (inside brackets they are free)."""
        return (start, end, "\n" * len(self.EOL.findall(self.text, start, end)))


def header_end(tree: ast.Module) -> ast.stmt | None:
    """The first statement that is neither the docstring nor a ``from __future__`` import."""
    for index, stmt in enumerate(tree.body):
        if index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            continue
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__" and stmt.level == 0:
            continue
        return stmt
    return None


def convert_module(source: str, tree: ast.Module, denoter: Denoter, merge: bool = False) -> Converted | None:
    """Static annotations instead of hand-written static keywords, wherever that is faithful.

    None when no decorator passes a static keyword. The pragma and the import go on two new
    lines right before the first ordinary statement (so the pragma is in the header); every
    later line moves down by two, nothing else moves: deleted keywords leave their line
    breaks behind.

    With ``merge``, the decorators stay exactly as written and only the first static
    parameter of each function is annotated: the engine must complete the user's lists.
    """
    scopes = Scopes()
    candidates = find_static_decorators(tree, scopes, denoter)
    if not candidates:
        return None
    text = Text(source)
    marker = "_JrStatic" if re.search(r"\bStatic\b", source) else "Static"
    called = _transform_call_targets(tree, scopes, {f.func.name for f in candidates if f.skip is None}, source)
    by_func: dict[int, list[Found]] = {}
    for found in candidates:
        by_func.setdefault(id(found.func), []).append(found)
    converted: list[Found] = []
    edits: list[tuple[int, int, str]] = []
    for group in by_func.values():
        if _plan_function(group, scopes, called):
            converted.extend(group)
            if not merge:
                for found in group:
                    edits.extend(_decorator_edits(found, text))
            static = group[0].static
            edits.extend(_annotation_edits(group[0].func, static[:1] if merge else static, text, marker))
    skipped = [f for f in candidates if f.skip is not None]
    first = header_end(tree)
    if not converted or first is None:
        return Converted(source, [], skipped)
    if first.col_offset != 0:  # ``from __future__ import x; import y``: no line to go before
        for found in converted:
            found.skip = "module header shares a line with code"
        return Converted(source, [], skipped + converted)
    line = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])])
    at = text.line_starts[line - 1]
    importing = "from jaxrewrite import Static" + (f" as {marker}" if marker != "Static" else "")
    edits.append((at, at, f"{PRAGMA}{importing}\n"))
    out = source
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:start] + new + out[end:]
    conv = Converted(out, converted, skipped, 2, line)
    conv.decorator_lines = frozenset(
        conv.new_line(n) for f in converted for n in range(f.call.lineno, f.call.end_lineno + 1)  # type: ignore[operator]
    )
    return conv


def _transform_call_targets(tree: ast.Module, scopes: Scopes, names: set[str], source: str) -> dict[str, str]:
    """Which of ``names`` are passed first to a call the engine may take for a transform (and rewrite)."""
    if not names:
        return {}
    first_argument = re.compile(r"\(\s*(?:[\w.]+\(\s*)?(" + "|".join(sorted(map(re.escape, names))) + r")\b")
    if not first_argument.search(source):  # the usual case: no need to look at expressions
        return {}
    out: dict[str, str] = {}
    for stmt, chain in statements(tree):
        if isinstance(stmt, (*FunctionNode, ast.ClassDef)):
            own: list[ast.AST] = [*stmt.decorator_list]  # evaluated outside; the body comes separately
        else:
            own = [v for k, v in ast.iter_fields(stmt) if k not in (*_BODIES, "handlers", "cases") and isinstance(v, ast.AST)]
            own += [x for k, v in ast.iter_fields(stmt) if k not in (*_BODIES, "handlers", "cases") and isinstance(v, list) for x in v if isinstance(x, ast.AST)]
        for expr in own:
            for node in ast.walk(expr):
                if isinstance(node, ast.Call) and node.args:
                    first = node.args[0]
                    if isinstance(first, ast.Call) and len(first.args) == 1 and not first.keywords:
                        first = first.args[0]
                    if isinstance(first, ast.Name) and first.id in names:
                        name = _engine_transform(node.func, scopes, chain)
                        if name is not None:
                            out.setdefault(first.id, name)
    return out


def _engine_transform(expr: ast.expr, scopes: Scopes, chain: Chain) -> str | None:
    """The engine's name for a transform expression (bare, ``partial(...)`` or factory form), if any."""
    while isinstance(expr, ast.Call):
        if scopes.qualname(expr.func, chain) == "functools.partial" and expr.args:
            expr = expr.args[0]
        else:
            expr = expr.func
    return engine_name(scopes.qualname(expr, chain)) if isinstance(expr, (ast.Name, ast.Attribute)) else None


def _plan_function(group: list[Found], scopes: Scopes, called: dict[str, str]) -> bool:
    """Plan every static decorator of one def; all are converted, or none (each ``skip`` says why)."""
    func = group[0].func
    sig = signature(func)
    readings: list[Reading] = []
    try:
        if any(f.skip for f in group):
            raise Unfaithful("stacked with a static spec that cannot be converted")
        for found in group:
            readings.append(_plan_one(found, sig))
        if len({r.params(sig) for r in readings}) > 1:
            raise Unfaithful("stacked transforms disagree on what is static")
        static = readings[0].params(sig)
        mine = {f.deco_index for f in group}
        for index, deco in enumerate(func.decorator_list):
            other = None if index in mine else _engine_transform(deco, scopes, group[0].chain)
            if other is not None and not _vmap_leaves_static(deco, other, static):
                raise Unfaithful("stacked with a transform that would get Static keywords too")
        if func.name in called:
            raise Unfaithful(f"also passed to a {called[func.name]} call in the module (would be rewritten too)")
    except Unfaithful as why:
        for found in group:
            found.skip = found.skip or str(why)
        return False
    for found, reading in zip(group, readings):
        spec = found.spec
        assert spec is not None
        params = reading.params(sig)
        found.static = tuple(p.name for p in params)
        found.nums = tuple(sorted(p.position for p in params if p.position is not None))
        found.names = tuple(p.name for p in params if p.by_keyword) if spec.argnames else ()
        notes = list(reading.notes)
        if len(group) > 1:
            notes.append("stacked static specs")
        if found.deco_index != len(func.decorator_list) - 1:
            notes.append("decorators below the transform")
        found.notes = tuple(notes)
    return True


def _plan_one(found: Found, sig: list[Param]) -> Reading:
    spec, call = found.spec, found.call
    assert spec is not None
    if any(kw.arg is None for kw in call.keywords):
        raise Unfaithful("**kwargs in the decorator")
    keywords = {kw.arg: kw.value for kw in call.keywords if kw.arg is not None}
    reading = read_spec(sig, spec, keywords)
    params = reading.params(sig)
    if not params:
        raise Unfaithful("empty static spec")
    for p in params:
        if spec.argnames is not None:
            if p.position is not None and p.position not in reading.positions:
                raise Unfaithful("static only when passed by keyword")
            if p.by_keyword and p.name not in reading.names:
                raise Unfaithful("static only when passed by position")
    if spec.donate is not None:
        donate_keys = [k for k in spec.donate.read if k in keywords]
        if any(_literal(keywords[k]) is _MISSING for k in donate_keys):
            return Reading(reading.positions, reading.names, reading.notes + ("non-literal donation",))
        try:
            donated = read_spec(sig, spec.donate, keywords).params(sig)
        except Unfaithful:  # a donation JAX would reject anyway: not this test's business
            return Reading(reading.positions, reading.names, reading.notes + ("donation not understood",))
        if set(donated) & set(params):
            raise Unfaithful("static and donated")
    return reading


def _vmap_leaves_static(deco: ast.expr, name: str, static: tuple[Param, ...]) -> bool:
    """A stacked ``partial(vmap, in_axes=(...))`` with None at every static position is left alone."""
    if name != "vmap" or not isinstance(deco, ast.Call):
        return False
    axes = next((kw.value for kw in deco.keywords if kw.arg == "in_axes"), None)
    if not isinstance(axes, (ast.Tuple, ast.List)):
        return False
    for p in static:
        if p.position is None or p.position >= len(axes.elts):
            return False
        entry = axes.elts[p.position]
        if not (isinstance(entry, ast.Constant) and entry.value is None):
            return False
    return True


def _decorator_edits(found: Found, text: Text) -> list[tuple[int, int, str]]:
    """Delete the static keywords; a one-line decorator left with nothing else becomes the bare transform."""
    call, spec, transform = found.call, found.spec, found.transform
    assert spec is not None and transform is not None
    items: list[ast.AST] = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))  # type: ignore[attr-defined]
    kept = [not isinstance(n, ast.keyword) or n.arg not in spec.read for n in items]
    rest = [n for n, k in zip(items, kept) if k]
    if rest == ([transform] if call.func is not transform else []) and call.lineno == call.end_lineno:
        # ``@partial(jit, static_argnums=1)`` / ``@jit(static_argnums=1)`` -> ``@jit``
        return [(text.start(call), text.end(call), text.segment(transform))]
    if not rest:  # ``@jit(\n    static_argnames=...)`` -> ``@jit(\n)``
        return [text.blank(text.start(items[0]), text.end(call) - 1)]
    first = kept.index(True)
    edits = []
    if first > 0:  # leading keywords go with the separator after them
        edits.append(text.blank(text.start(items[0]), text.start(items[first])))
    for index in range(first + 1, len(items)):
        if not kept[index]:  # later ones go with the separator before them
            edits.append(text.blank(text.end(items[index - 1]), text.end(items[index])))
    merged: list[tuple[int, int, str]] = []
    for start, end, new in edits:  # consecutive deletions touch: one edit each run
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end, merged[-1][2] + new)
        else:
            merged.append((start, end, new))
    return merged


def _annotation_edits(func: Func, static: tuple[str, ...], text: Text, marker: str) -> list[tuple[int, int, str]]:
    """``x`` -> ``x: Static``, ``x: int`` -> ``x: Static[int]``, ``x: "int"`` -> ``x: Static["int"]``."""
    a = func.args
    by_name = {arg.arg: arg for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
    edits = []
    for name in static:
        arg = by_name[name]
        if arg.annotation is None:
            edits.append((text.end(arg), text.end(arg), f": {marker}"))
        else:
            edits.append((text.start(arg.annotation), text.start(arg.annotation), f"{marker}["))
            edits.append((text.end(arg.annotation), text.end(arg.annotation), "]"))
    return edits


# -- reading the rewritten decorators back --------------------------------------------------------


def decorator_keywords(deco: ast.expr) -> dict[str, ast.expr] | None:
    """Keywords of ``partial(T, ...)``, ``T(...)`` or ``(lambda fun[, transform=T]: T(fun, ...))``."""
    if isinstance(deco, ast.Lambda):
        deco = deco.body
    if not isinstance(deco, ast.Call):
        return None
    return {kw.arg: kw.value for kw in deco.keywords if kw.arg is not None}


def verify_module(conv: Converted, output: str) -> Iterator[tuple[Found, str | None]]:
    """(decorator, problem or None) for each converted decorator, read from the rewritten text."""
    tree = ast.parse(output)
    defs = {(node.lineno, node.name): node for node, _ in statements(tree) if isinstance(node, FunctionNode)}
    for found in conv.converted:
        node = defs.get((conv.new_line(found.func.lineno), found.func.name))
        yield found, "def not found at its line in the output" if node is None else verify_decorator(found, node)


def verify_decorator(found: Found, node: Func) -> str | None:
    spec = found.spec
    assert spec is not None
    deco = node.decorator_list[found.deco_index]
    found.form = "lambda wrapper" if isinstance(deco, ast.Lambda) else "completed in place"
    keywords = decorator_keywords(deco)
    if keywords is None:
        return f"decorator not rewritten into a call: {ast.unparse(deco)}"
    missing = [k for k in spec.written if k not in keywords]
    if missing:
        return f"{ast.unparse(deco)} lacks {missing}"
    # The lists themselves: positions ascending, names in signature order (a literal already
    # right may stay as written, a list say). A kept ``nondiff_argnames`` adds positions of its own.
    nums = tuple(_items(keywords[spec.argnums], spec.argnums, int) or ())
    if nums != found.nums and not (spec.names_as_positions and spec.names_as_positions in keywords):
        return f"{spec.argnums}={nums!r}, expected {found.nums!r}"
    if spec.argnames is not None:
        names = tuple(_items(keywords[spec.argnames], spec.argnames, str) or ())
        if names != found.names:
            return f"{spec.argnames}={names!r}, expected {found.names!r}"
    # Read back through JAX's rules: the same parameters as the hand-written spec ...
    sig = signature(node)
    reading = read_spec(sig, spec, keywords)
    back = tuple(p.name for p in reading.params(sig))
    if back != found.static:
        return f"static parameters {back!r}, expected {found.static!r}"
    # ... each positional-or-keyword one in both lists ...
    for p in reading.params(sig):
        if spec.argnames is not None and p.kind == "pos_or_kw" and (p.position not in reading.positions or p.name not in reading.names):
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

    files_with_keywords: int = 0
    files_converted: int = 0
    functions: int = 0
    decorators: int = 0
    verified: int = 0
    functions_verified: int = 0
    #: The same functions with the decorators kept as written and one parameter annotated.
    merge_verified: int = 0
    by_transform: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
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
    """Rewrite a converted module and read it back: (output, the decorators that verified)."""
    from jaxrewrite.engine.header import scan_header

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
    stray = [n for n in lines if n not in conv.decorator_lines]
    if stray:
        problems.append(f"{where}: lines {stray[:5]} changed outside the converted decorators")
    good = []
    for found, problem in verify_module(conv, output):
        if problem is None:
            good.append(found)
        else:
            problems.append(f"{where}:{found.func.lineno} {found.func.name}: {problem}")
    return output, good


def convert_corpus(files: list[tuple[str, Path]], rewrite: Callable[[str, str], str]) -> CorpusRun:
    """Convert every hand-written static spec of ``files``, rewrite, and read the result back."""
    run = CorpusRun()
    denoter = Denoter()
    for _, path in files:
        source = read_source(path)
        if not any(keyword in source for keyword in STATIC_KEYWORDS):
            continue
        try:
            tree = ast.parse(source, str(path))
        except SyntaxError:
            continue  # counted by the byte-identical test
        conv = convert_module(source, tree, denoter)
        if conv is None:
            continue
        run.files_with_keywords += 1
        run.skipped.update(found.skip or "?" for found in conv.skipped)
        if not conv.converted:
            continue
        run.files_converted += 1
        run.decorators += len(conv.converted)
        run.functions += len({id(f.func) for f in conv.converted})
        run.by_transform.update(f.spec.name for f in conv.converted if f.spec)
        run.notes.update(note for f in conv.converted for note in f.notes)
        output, good = check_rewrite(conv, rewrite, str(path), run.problems)
        if output is not None:
            run.modules.append((path, conv, output))
        run.verified += len(good)
        run.forms.update(f.form for f in good)
        passed = {id(f) for f in good}
        failed = {id(f.func) for f in conv.converted if id(f) not in passed}
        run.functions_verified += len({id(f.func) for f in conv.converted} - failed)
        merged = convert_module(source, tree, denoter, merge=True)
        assert merged is not None
        _, good = check_rewrite(merged, rewrite, f"{path} (merge)", run.problems)
        run.merge_verified += len(good)
    return run
