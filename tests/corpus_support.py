"""The real-code corpus: the installed jax, jaxlib and numpy sources, migrated to Static
annotations.

Used by ``tests/migrate/test_corpus.py`` (``test_check.py`` takes the file list):

* ``migrate_module`` runs ``jaxrewrite.migrate.migrate_source`` on one module, as a user adopting
  jaxrewrite would, and finds each migrated def and each of its transform uses (decorators and
  call sites) in the original's syntax tree, where migrate's records say they are.
* ``check_rewrite`` rewrites the migrated text (or ``merged_text``: the specs kept as written and
  one parameter per function annotated, so the engine must complete the user's lists) and reads
  every use back from the rewritten text with plain ``ast``. The reading of a spec is JAX's
  (``api_util.infer_argnums_and_argnames``, copied, on an ``inspect.Signature`` of the def) with a
  table of keywords kept here (``JAX_SPECS``), not migrate's nor the engine's: a bug in migrate's
  round trip cannot hide itself. Each use must give JAX the statics the hand-written spec gave, keep
  every other argument as written, and the rewrite may move no line nor touch one outside the uses.
"""

from __future__ import annotations

import ast
import bisect
import importlib.util
import inspect
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from depth import FULL
from migrate_support import spec_value

from jaxrewrite.engine.read.source import Source
from jaxrewrite.migrate import Migration, may_need_migration, migrate_source

CORPUS_PACKAGES = ("jax", "jaxlib", "numpy")
PRAGMA = "# jaxrewrite: enable\n"
FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef)
Func = ast.FunctionDef | ast.AsyncFunctionDef
Rewrite = Callable[[str, str], str]


#: The README's test command reads a stable half of the corpus (``in_sample``); under
#: ``JAXREWRITE_FULL=1`` (.ci/run) every file (tests/depth.py).
SHARE = 1 if FULL else 2


def at_least(full: int, sampled: int) -> int:
    """A lower bound on what the corpus gives: ``full`` for every file, ``sampled`` for the
    README's half (each far below what jax 0.10.2 gives, far above what a broken finder would)."""
    return full if FULL else sampled


def corpus_files(sampled: bool = False) -> list[tuple[str, Path]]:
    """(package, path) of every .py file of the installed corpus packages, sorted; ``sampled``:
    only those ``in_sample``."""
    found: set[tuple[str, Path]] = set()
    for package in CORPUS_PACKAGES:
        spec = importlib.util.find_spec(package)
        for root in (spec.submodule_search_locations or []) if spec else []:
            found.update(
                (package, path)
                for path in Path(root).rglob("*.py")
                if path.is_file() and (not sampled or in_sample(below(Path(root), path)))
            )
    return sorted(found, key=lambda item: (item[0], str(item[1])))


def below(root: Path, path: Path) -> str:
    """``path`` below its package's folder (``jax/_src/api.py``), as the sample's hash reads it:
    the same on every machine."""
    return f"{root.name}/{path.relative_to(root).as_posix()}"


def in_sample(where: str, share: int = SHARE) -> bool:
    """One file in ``share``, by a hash of its path below the package (``below``)."""
    return zlib.crc32(where.encode()) % share == 0


def read_source(path: Path) -> str:
    """The text Python compiles for ``path`` (PEP 263 decoding, universal newlines)."""
    return importlib.util.decode_source(path.read_bytes())


_MIGRATIONS: dict[tuple[str, str], Migration] = {}


def migrate_once(source: str, where: str) -> Migration:
    """``migrate_source(source, where)``, once per process for a text the pre-filter lets through:
    test_corpus.py and test_migrate.py's corpus test migrate the same files and share a worker
    (an xdist group), so the second reads the first's results instead of analyzing it all again.
    Neither changes a Migration; a SyntaxError is raised each time (nothing is kept for it)."""
    if not may_need_migration(source):
        return migrate_source(source, where)  # nothing to keep: the text back, or the SyntaxError
    key = (where, source)
    if key not in _MIGRATIONS:
        _MIGRATIONS[key] = migrate_source(source, where)
    return _MIGRATIONS[key]


# -- JAX's reading of a static spec (independent of the engine's table and of migrate) ----------


@dataclass(frozen=True)
class JaxSpec:
    """How one JAX transform takes static arguments: ``argnames`` is inferred from ``argnums``
    and back; ``names_as_positions`` become positions (custom_vjp's ``nondiff_argnames``);
    ``positional``: what a call site's positional arguments after the function bind."""

    argnums: str
    argnames: str | None = None
    names_as_positions: str | None = None
    positional: tuple[str, ...] = ()

    @property
    def keywords(self) -> frozenset[str]:
        return frozenset(k for k in (self.argnums, self.argnames, self.names_as_positions) if k)


_JIT = JaxSpec("static_argnums", "static_argnames")
_CUSTOM = JaxSpec(
    "nondiff_argnums", None, "nondiff_argnames", ("nondiff_argnums", "nondiff_argnames")
)
#: The engine's transform name -> how JAX 0.10.2 reads it (jit's positional arguments are no spec;
#: checkpoint's static_argnames needs jax_remat3: not read).
JAX_SPECS: dict[str, JaxSpec] = {
    "jit": _JIT,
    "pjit": _JIT,
    "pmap": JaxSpec("static_broadcasted_argnums"),
    "checkpoint": JaxSpec("static_argnums"),
    "remat": JaxSpec("static_argnums"),
    "make_jaxpr": JaxSpec("static_argnums", positional=("static_argnums",)),
    "custom_jvp": _CUSTOM,
    "custom_vjp": _CUSTOM,
}
#: (positions, names) JAX makes static.
Statics = tuple[frozenset[int], frozenset[str]]


def signature(func: Func) -> inspect.Signature:
    """The def's signature as ``inspect.signature`` gives it to JAX (annotations and defaults
    aside)."""
    a, P = func.args, inspect.Parameter
    params = [P(x.arg, P.POSITIONAL_ONLY) for x in a.posonlyargs] + [
        P(x.arg, P.POSITIONAL_OR_KEYWORD) for x in a.args
    ]
    params += [P(a.vararg.arg, P.VAR_POSITIONAL)] if a.vararg else []
    params += [P(x.arg, P.KEYWORD_ONLY) for x in a.kwonlyargs]
    return inspect.Signature(params + ([P(a.kwarg.arg, P.VAR_KEYWORD)] if a.kwarg else []))


def _tuple(value: object, kind: type) -> tuple[object, ...]:
    """JAX's ``_ensure_index_tuple`` / ``_ensure_str_tuple``: one item or a sequence of them."""
    items = (value,) if isinstance(value, kind) else tuple(value)  # type: ignore[arg-type]
    if not all(isinstance(i, kind) and not isinstance(i, bool) for i in items):
        raise ValueError(f"not {kind.__name__}s: {value!r}")
    return items


def infer_argnums_and_argnames(
    sig: inspect.Signature, argnums: object, argnames: object
) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """``jax._src.api_util.infer_argnums_and_argnames`` (importing jax would slow the whole run):
    a missing list is inferred from the other through positional-or-keyword parameters."""
    if argnums is None and argnames is None:
        return (), ()
    if argnums is not None and argnames is not None:
        return _tuple(argnums, int), _tuple(argnames, str)
    pok = [
        (i, name)
        for i, (name, p) in enumerate(sig.parameters.items())
        if p.kind is p.POSITIONAL_OR_KEYWORD
    ]
    if argnums is None:
        names = _tuple(argnames, str)
        return tuple(i for i, name in pok if name in names), names
    nums = _tuple(argnums, int)
    return nums, tuple(name for i, name in pok if i in nums)


def jax_reading(spec: JaxSpec, sig: inspect.Signature, given: dict[str, object]) -> Statics:
    """What JAX makes static for these literal spec values (``None``: not given)."""
    if spec.argnames is not None:
        nums, names = infer_argnums_and_argnames(
            sig, given.get(spec.argnums), given.get(spec.argnames)
        )
        return frozenset(nums), frozenset(names)  # type: ignore[arg-type]
    argnums = given.get(spec.argnums)
    positions = set() if argnums is None else set(_tuple(argnums, int))
    extra = given.get(spec.names_as_positions) if spec.names_as_positions else None
    if extra:  # custom_vjp: the names become positions, and JAX keeps positions only
        positions |= set(infer_argnums_and_argnames(sig, None, extra)[0])
    return frozenset(positions), frozenset()  # type: ignore[arg-type]


def _chain(expr: ast.expr) -> list[ast.Call]:
    """The calls naming the transform, outermost first: ``T(f, ...)``, ``partial(T, ...)(f)``,
    ``T(...)``."""
    calls = []
    while isinstance(expr, ast.Call):
        calls.append(expr)
        expr = expr.func
    return calls


def _spec(node: ast.expr) -> object:
    """A literal, or ``range``/``tuple``/``list`` of literals, as Python computes it (JAX takes any
    iterable); ValueError for anything else (a name, another call)."""
    try:
        return spec_value(node, {})
    except Exception as why:  # noqa: BLE001 - whatever Python would raise: not a spec read here
        raise ValueError(f"{type(why).__name__}: {why}") from None


def read_use(expr: ast.expr, spec: JaxSpec, call_site: bool) -> tuple[dict[str, object], list[str]]:
    """The literal spec values written in the use's own expression, and every other argument
    (dumped; a ``partial``'s transform left out, as the hook's wrapper adds one). ValueError:
    a spec this reading cannot take (not literal, or ``**``)."""
    given: dict[str, object] = {}
    others: list[str] = []
    calls = _chain(expr)
    for depth, call in enumerate(reversed(calls)):  # innermost first: an outer call's keywords win
        args = call.args[1:] if ast.unparse(call.func).endswith("partial") else call.args
        if call_site and depth == len(calls) - 1 and call.args:
            bound = call.args[1 : 1 + len(spec.positional)]
            given.update((name, _spec(arg)) for name, arg in zip(spec.positional, bound))
            args = [call.args[0], *call.args[1 + len(bound) :]]
        others += [ast.dump(arg) for arg in args]
        for kw in call.keywords:
            if kw.arg is None:
                raise ValueError(f"**{ast.unparse(kw.value)}")
            if kw.arg in spec.keywords:
                given[kw.arg] = _spec(kw.value)
            else:
                others.append(f"{kw.arg}={ast.dump(kw.value)}")
    return given, sorted(others)


# -- one module: migrated, rewritten, read back -------------------------------------------------


@dataclass(frozen=True)
class Found:
    """One transform use of a migrated function, where migrate's record says it is."""

    node: ast.expr
    func: Func
    transform: str
    call_site: bool
    #: A call site: how many calls of the same function start before it on its line.
    index: int
    #: The user wrote a static spec there (a non-literal one included): a converted use.
    written: bool


@dataclass
class Module:
    """One module: its text, what migrate made of it, and the migrated defs and uses (plain
    ``ast``)."""

    where: str
    source: str
    migration: Migration
    found: list[Found] = field(default_factory=list)
    #: id(def or use node) -> the line it starts on in the migrated text.
    lines: dict[int, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _span(node: ast.AST) -> tuple[int, int, int | None, int | None]:
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]


def migrate_module(source: str, where: str = "<corpus>") -> Module:
    """``migrate_source`` on ``source`` (Python's SyntaxError if it does not parse), and the
    defs and uses its records name, looked up in the original's syntax tree."""
    module = Module(where, source, migrate_once(source, where))
    migrated = module.migration.migrated
    nodes = (
        _nodes_on(
            ast.parse(source, where),
            {m.line for m in migrated} | {r.line for m in migrated for r in m.uses},
        )
        if migrated
        else []
    )
    defs = {(n.lineno, n.name): n for n in nodes if isinstance(n, FunctionNode)}
    calls = [n for n in nodes if isinstance(n, ast.Call)]
    for m in migrated:
        func = defs.get((m.line, m.function))
        if func is None:
            module.problems.append(f"{where}:{m.line}: migrate's record names no def {m.function}")
            continue
        module.lines[id(func)] = m.new_line
        for r in m.uses:
            call_site = r.kind == "call"
            node = next(
                (
                    n
                    for n in (calls if call_site else func.decorator_list)
                    if _span(n) == (r.line, r.col, r.end_line, r.end_col)
                ),
                None,
            )
            if node is None or (call_site and _applied_to(node) != func.name):  # type: ignore[arg-type]
                module.problems.append(
                    f"{where}:{r.line}: migrate's record names no {r.kind} of {m.function} there"
                )
                continue
            same = (
                [
                    c
                    for c in calls
                    if c.lineno == r.line and ast.dump(c.args[0]) == ast.dump(node.args[0])
                ]
                if call_site
                else []
            )  # type: ignore[attr-defined]
            index = sum(c.col_offset < node.col_offset for c in same)
            module.found.append(
                Found(
                    node,
                    func,
                    r.transform,
                    call_site,
                    index,
                    _written(node, r.transform, call_site),
                )
            )
            module.lines[id(node)] = r.new_line
    module.found.sort(key=lambda f: (f.node.lineno, f.node.col_offset))
    return module


def _applied_to(call: ast.Call) -> str | None:
    """The name a call site applies its transform to, through transforms nested in it."""
    first = call.args[0]
    while isinstance(first, ast.Call) and first.args:
        first = first.args[0]
    return first.id if isinstance(first, ast.Name) else None


def _written(node: ast.expr, transform: str, call_site: bool) -> bool:
    spec = JAX_SPECS.get(transform)
    try:
        return spec is not None and bool(read_use(node, spec, call_site)[0])
    except ValueError:
        return True


def _nodes_on(tree: ast.AST, lines: set[int]) -> list[ast.AST]:
    """The defs and calls with arguments that start on one of ``lines``: a descent into the nodes
    spanning them only."""
    wanted, found, stack = sorted(lines), list[ast.AST](), [tree]
    while stack:
        for child in ast.iter_child_nodes(stack.pop()):
            end = getattr(child, "end_lineno", None)
            if end is None:  # ``arguments``, ``comprehension``, operators: no position of their own
                stack.append(child)
                continue
            first = min([child.lineno, *(d.lineno for d in getattr(child, "decorator_list", ()))])  # type: ignore[attr-defined]
            at = bisect.bisect_left(wanted, first)
            if at < len(wanted) and wanted[at] <= end:
                if child.lineno in lines and (
                    isinstance(child, FunctionNode) or isinstance(child, ast.Call) and child.args
                ):  # type: ignore[attr-defined]
                    found.append(child)
                stack.append(child)
    return found


def merged_text(module: Module) -> tuple[str, dict[int, int]]:
    """The original with migrate's pragma and import lines where migrate put the pragma, and only
    the first migrated parameter of each function annotated; and the new lines of defs and uses."""
    src, lines = (
        Source(module.source, module.where),
        [line.rstrip("\r") for line in module.migration.text.split("\n")],
    )
    at = lines.index(PRAGMA.strip()) + 1  # nothing before the first statement moves in a migration
    importing = next(line for line in lines if line.startswith("from jaxrewrite import "))
    edits = [(src.line_starts[at - 1], src.line_starts[at - 1], f"{PRAGMA}{importing}\n")]
    funcs = {(f.func.lineno, f.func.name): f.func for f in module.found}
    for m in module.migration.migrated:
        func = funcs.get((m.line, m.function))
        if func is not None and m.params:
            (name, marker), a = m.params[0], func.args
            arg = next(x for x in [*a.posonlyargs, *a.args, *a.kwonlyargs] if x.arg == name)
            if arg.annotation is None:
                edits.append((src.end(arg), src.end(arg), f": {marker}"))
            else:
                edits += [
                    (src.start(arg.annotation), src.start(arg.annotation), f"{marker}["),
                    (src.end(arg.annotation), src.end(arg.annotation), "]"),
                ]
    text = module.source
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text, {
        id(n): n.lineno + 2 * (n.lineno >= at) for f in module.found for n in (f.node, f.func)
    }


@dataclass
class Checked:
    """One text rewritten: the uses that read back as they were meant, how each was spelled,
    problems."""

    output: str | None
    good: list[Found] = field(default_factory=list)
    #: id(def) of each function with a use that does not read back.
    bad: set[int] = field(default_factory=set)
    forms: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


def changed_lines(before: str, after: str) -> list[int] | None:
    """1-based lines that differ, or None when the line counts differ (lines moved)."""
    a, b = before.split("\n"), after.split("\n")
    return None if len(a) != len(b) else [n for n, (x, y) in enumerate(zip(a, b), 1) if x != y]


def check_rewrite(
    module: Module, text: str, new_lines: dict[int, int], rewrite: Rewrite, where: str
) -> Checked:
    """Rewrite ``text`` (its defs and uses at ``new_lines``) and read each use back from the output:
    a decorator at its line, a call site among the calls at its line."""
    try:
        output = rewrite(text, where)
    except SyntaxError as error:  # RewriteError included: a faithful migration must rewrite
        return Checked(
            None, problems=[f"{where}: rewrite_source raised {type(error).__name__}: {error}"]
        )
    checked, lines, spans = Checked(output), output.split("\n"), set[int]()
    calls: dict[int, list[ast.Call]] = defaultdict(list)
    if any(use.call_site for use in module.found):  # a few modules: the whole tree
        for node in _nodes_on(ast.parse(output), {new_lines[id(use.node)] for use in module.found}):
            calls[node.lineno].append(node)  # type: ignore[arg-type, attr-defined]
    for use in module.found:
        func, line, problem = use.func, new_lines[id(use.node)], None
        expr: ast.expr | None = None
        if (
            not lines[new_lines[id(func)] - 1]
            .lstrip()
            .startswith((f"def {func.name}(", f"async def {func.name}("))
        ):
            problem = f"def not at line {new_lines[id(func)]} of the output"
        elif use.call_site:
            same = sorted(
                (c for c in calls[line] if ast.dump(c.args[0]) == ast.dump(use.node.args[0])),
                key=lambda c: c.col_offset,
            )  # type: ignore[attr-defined]
            expr, end = (
                (same[use.index], same[use.index].end_lineno or line)
                if use.index < len(same)
                else (None, 0)
            )
        else:
            expr, end = _decorator_at(lines, line)
        if expr is None:
            problem = problem or (
                f"no {'call site' if use.call_site else 'decorator'} at line {line} of the output"
            )
        else:
            spans.update(range(line, end + 1))
            problem = _compare(use, expr)
        if problem:
            checked.bad.add(id(func))
            kind = "call" if use.call_site else "decorator"
            checked.problems.append(
                f"{where}:{use.node.lineno} {func.name} ({kind} {use.transform}): {problem}"
            )
        elif use.written:
            checked.good.append(use)
            wrapper = (
                _chain(expr)
                and ast.unparse(_chain(expr)[-1].func) == "__import__('functools').partial"
            )  # type: ignore[arg-type]
            checked.forms["partial wrapper" if wrapper else "completed in place"] += 1
    changed = changed_lines(text, output)
    if changed is None:
        checked.problems.append(f"{where}: the rewrite moved lines")
    elif [n for n in changed if n not in spans]:
        checked.problems.append(
            f"{where}: lines {[n for n in changed if n not in spans][:5]} changed outside the uses"
        )
    return checked


def _decorator_at(lines: list[str], line: int) -> tuple[ast.expr | None, int]:
    """The decorator expression that starts ``line`` (1-based) and its last line: the shortest run
    of lines from there that parses."""
    text = lines[line - 1].lstrip()
    if not text.startswith("@"):
        return None, 0
    text = text[1:]
    for end in range(line, len(lines) + 1):
        try:
            return ast.parse(text.strip(), mode="eval").body, end
        except SyntaxError:
            text += "\n" + lines[end] if end < len(lines) else ""
    return None, 0


def _compare(use: Found, expr: ast.expr) -> str | None:
    """The same statics for JAX before and after, and every other argument as written."""
    spec = JAX_SPECS.get(use.transform)
    if spec is None:  # a transform that takes no static spec (vmap, grad): nothing may change
        return (
            None
            if ast.dump(use.node) == ast.dump(expr)
            else f"{ast.unparse(use.node)} became {ast.unparse(expr)}"
        )
    sig = signature(use.func)
    try:
        given, others = read_use(use.node, spec, use.call_site)
        was = jax_reading(spec, sig, given)
    except ValueError as why:
        return f"the original spec is not one this reading takes: {why}"
    try:
        given, others_now = read_use(expr, spec, use.call_site)
        now = jax_reading(spec, sig, given)
    except ValueError as why:
        return f"rewritten spec unreadable: {why}: {ast.unparse(expr)}"
    if now != was:
        return (
            f"JAX reads static {_spell(now)} in {ast.unparse(expr)}, the original spec gave "
            f"{_spell(was)}"
        )
    return (
        None
        if others_now == others
        else f"other arguments changed: {ast.unparse(use.node)} -> {ast.unparse(expr)}"
    )


def _spell(statics: Statics) -> str:
    return f"positions {sorted(statics[0])}, names {sorted(statics[1])}"


# -- the whole corpus ----------------------------------------------------------------------------


@dataclass
class CorpusRun:
    """What migrating the corpus found: counts, and every problem as a readable line."""

    files_with_specs: int = 0
    files_converted: int = 0
    functions: int = 0
    functions_verified: int = 0
    uses: int = 0
    verified: int = 0
    #: The same functions with the uses kept as written and one parameter annotated.
    merge_verified: int = 0
    by_transform: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)
    forms: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


def convert_corpus(files: list[tuple[str, Path]], rewrite: Rewrite) -> CorpusRun:
    """Migrate every module of ``files``, rewrite, and read the result back."""
    run = CorpusRun()
    for _, path in files:
        source = read_source(path)
        if not may_need_migration(source):
            # migrate_source gives it back unchanged; whether it compiles is the other test's
            continue
        try:
            module = migrate_module(source, str(path))
        except SyntaxError:
            continue  # counted by the byte-identical test
        result = module.migration
        run.files_with_specs += bool(result.migrated or result.refused)
        run.skipped.update(f"{r.reason.rule.code} {r.reason.value}" for r in result.refused)
        if not result.migrated:
            continue
        run.files_converted += 1
        run.functions += len(result.migrated)
        written = [use for use in module.found if use.written]
        run.uses += len(written)
        run.by_transform.update(use.transform for use in written)
        run.by_kind.update("call site" if use.call_site else "decorator" for use in written)
        checked = check_rewrite(module, result.text, module.lines, rewrite, str(path))
        run.verified += len(checked.good)
        run.forms += checked.forms
        run.functions_verified += (
            len({id(use.func) for use in module.found} - checked.bad)
            if checked.output is not None
            else 0
        )
        merged = check_rewrite(module, *merged_text(module), rewrite, f"{path} (merge)")
        run.merge_verified += len(merged.good)
        run.problems += module.problems + checked.problems + merged.problems
    return run
