"""The round-trip proof of ``jaxrewrite migrate`` (tests/migrate/test_migrate.py, the corpus tests):
an independent reader of JAX's rules on what the text says, and the module check built on it."""

from __future__ import annotations

import ast
import copy
import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass

from jaxrewrite import rewrite_source
from jaxrewrite.header import scan_header
from jaxrewrite.migrate import Migration, UseRecord, migrate_source


def report(result: Migration) -> list[str]:
    """Every migration and refusal, one line each, in source order (the golden ``.report``)."""
    items: list[tuple[int, int, str]] = []
    for m in result.migrated:
        added = ", ".join(f"{name}: {marker}" for name, marker in m.params) or "nothing to add"
        n = sum(use.written for use in m.uses)
        removed = f"({n} spec{'s' if n != 1 else ''} removed)"
        items.append((m.line, 0, f"{m.line}: migrated {m.function}: {added} {removed}"))
    items += [(r.line, 1, f"{r.line}: {r.text}") for r in result.refused]
    return [text for _, _, text in sorted(items)]


# -- an independent reader: JAX's own rules on what the text says ---------------------------------

#: The keywords that make arguments static, per transform, as JAX's signatures name them.
SPEC_WORDS = {
    "jit": ("static_argnums", "static_argnames"),
    "pjit": ("static_argnums", "static_argnames"),
    "pmap": ("static_broadcasted_argnums",),
    "checkpoint": ("static_argnums",),
    "remat": ("static_argnums",),
    "custom_vjp": ("nondiff_argnums", "nondiff_argnames"),
    "custom_jvp": ("nondiff_argnums", "nondiff_argnames"),
}


@functools.cache
def positional(transform: str) -> tuple[str, ...]:
    """What the installed JAX's transform takes by position after the function, from its
    signature."""
    import jax
    import jax.experimental.pjit

    obj = getattr(jax, transform, None) or getattr(jax.experimental.pjit, transform)
    params = list(
        inspect.signature(obj.__init__ if isinstance(obj, type) else obj).parameters.values()
    )
    if isinstance(obj, type):
        params = params[1:]  # self
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return tuple(p.name for p in params[1:] if p.kind in kinds)


Func = ast.FunctionDef | ast.AsyncFunctionDef


def signature(func: Func) -> inspect.Signature:
    """The real ``inspect.Signature`` of a def: its parameters, without annotations or defaults'
    values."""
    args = copy.deepcopy(func.args)
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None:
            arg.annotation = None
    args.defaults = [ast.Constant(None) for _ in args.defaults]
    args.kw_defaults = [None if d is None else ast.Constant(None) for d in args.kw_defaults]
    namespace: dict[str, object] = {}
    exec(f"def f({ast.unparse(args)}): pass", namespace)
    return inspect.signature(namespace["f"])  # type: ignore[arg-type]


def _tuple(value: object) -> tuple[object, ...] | None:
    if value is None:
        return None
    return tuple(value) if isinstance(value, (tuple, list, range)) else (value,)


#: What a spec may call besides literals (JAX takes any iterable of ints or strs).
_SEQUENCES = {"range": range, "tuple": tuple, "list": list}


def module_constants(tree: ast.Module) -> dict[str, object]:
    """The module's top-level ``NAME = <literals, range/tuple/list of them>`` values, in order, as
    Python evaluates them (a spec may name one): the reader's own, not the engine's."""
    names: dict[str, object] = {}
    for stmt in tree.body:
        target = stmt.target if isinstance(stmt, ast.AnnAssign) and stmt.value else None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
        if isinstance(target, ast.Name):
            try:
                names[target.id] = spec_value(stmt.value, names)  # type: ignore[union-attr]
            except Exception:  # noqa: BLE001 - not a constant: a spec naming it is refused anyway
                names.pop(target.id, None)
    return names


def spec_value(node: ast.expr, names: dict[str, object]) -> object:
    """A spec's value as Python computes it, from literals, the module's constants and ``range``,
    ``tuple``, ``list`` (nothing else is in reach)."""
    code = compile(ast.Expression(node), "<spec>", "eval")
    return eval(code, {"__builtins__": _SEQUENCES}, dict(names))


def jax_reading(
    transform: str,
    keywords: dict[str, ast.expr],
    func: Func,
    names: dict[str, object] | None = None,
) -> dict[str, frozenset[object]]:
    """Which positions and names are static, per spec keyword, as JAX itself reads ``keywords``
    (``names``: the module's constants, ``module_constants``)."""
    from jax._src.api_util import infer_argnums_and_argnames

    words = SPEC_WORDS.get(transform, ())  # vmap, grad: nothing static; compared as other keywords
    given = {k: spec_value(v, names or {}) for k, v in keywords.items() if k in words}
    sig = signature(func)
    if transform in ("jit", "pjit"):
        nums, names = infer_argnums_and_argnames(
            sig, _tuple(given.get("static_argnums")), _tuple(given.get("static_argnames"))
        )
        return {"static_argnums": frozenset(nums), "static_argnames": frozenset(names)}
    if transform in ("custom_vjp", "custom_jvp"):
        nums = set(_tuple(given.get("nondiff_argnums")) or ())
        names = _tuple(given.get("nondiff_argnames"))
        if names:
            nums |= set(infer_argnums_and_argnames(sig, None, names)[0])
        return {"nondiff_argnums": frozenset(nums)}
    if not words:
        return {}
    word = words[0]
    return {word: frozenset(_tuple(given.get(word)) or ())}


def keywords_of(node: ast.expr, transform: str) -> dict[str, ast.expr]:
    """The keywords a transform expression passes: ``partial(T, ...)``, ``T(...)``, ``T(f, ...)``,
    ``partial(T, ...)(f, ...)`` or the hook's ``__import__('functools').partial(T, ...)``; a bare
    ``T``
    passes none."""
    if not isinstance(node, ast.Call):
        return {}
    found = keywords_of(node.func, transform) if isinstance(node.func, ast.Call) else {}
    if len(node.args) > 1:
        found.update(zip(positional(transform), node.args[1:]))
    found.update({kw.arg: kw.value for kw in node.keywords if kw.arg is not None})
    return found


def root_name(node: ast.expr) -> str:
    """The function a call site applies its transform to, through wrapping calls."""
    while isinstance(node, ast.Call) and node.args:
        node = node.args[0]
    return node.id if isinstance(node, ast.Name) else ast.unparse(node)


class Tree:
    """A parsed module with its defs and calls indexed once: the round trip looks up several defs
    and calls per migrated function, and walking the whole tree for each made the corpus check
    walk the largest modules of jax hundreds of times."""

    def __init__(self, text: str) -> None:
        self.tree = ast.parse(text)
        self.defs: dict[tuple[str, int], list[Func]] = {}
        self.calls: dict[int, list[ast.Call]] = {}
        self.spans: dict[tuple[int, int, int | None, int | None], ast.Call] = {}
        for n in ast.walk(self.tree):  # ast.walk's order, as the lookups below always read it
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.defs.setdefault((n.name, n.lineno), []).append(n)
            elif isinstance(n, ast.Call):
                self.calls.setdefault(n.lineno, []).append(n)
                self.spans.setdefault((n.lineno, n.col_offset, n.end_lineno, n.end_col_offset), n)


def defs_at(tree: Tree, name: str, line: int) -> Func:
    found = tree.defs.get((name, line), [])
    assert len(found) == 1, (name, line, len(found))
    return found[0]


def calls_on(tree: Tree, line: int, root: str) -> list[ast.Call]:
    calls = [n for n in tree.calls.get(line, []) if n.args and root_name(n) == root]
    return sorted(calls, key=lambda c: c.col_offset)


@dataclass
class Located:
    """One use in one text: the transform expression and the def it applies to."""

    node: ast.expr
    func: Func


def locate(
    tree: Tree, use: UseRecord, func: Func, line: int, original: Tree, old_func: Func
) -> Located:
    """The same use in another version of the module: by decorator index, or by order among the
    calls on its line that apply a transform to the same function."""
    if use.kind == "decorator":
        index = next(
            i
            for i, d in enumerate(old_func.decorator_list)
            if (d.lineno, d.col_offset) == (use.line, use.col)
        )
        return Located(func.decorator_list[index], func)
    old_call = original.spans[(use.line, use.col, use.end_line, use.end_col)]
    root = root_name(old_call)
    k = calls_on(original, use.line, root).index(old_call)
    return Located(calls_on(tree, line, root)[k], func)


def check_round_trip(original: str, result: Migration, where: str) -> list[str]:
    """Every problem with one migrated module, read with JAX's rules (empty: proven)."""
    problems: list[str] = []
    before_text = rewrite_source(original, where) if scan_header(original).enabled else original
    after_text = rewrite_source(result.text, where)
    old, migrated, after = Tree(original), Tree(result.text), Tree(after_text)
    before = old if before_text is original else Tree(before_text)
    constants, after_constants = module_constants(before.tree), module_constants(after.tree)
    allowed: set[int] = set()
    for fn in result.migrated:
        old_func = defs_at(old, fn.function, fn.line)
        before_func = defs_at(before, fn.function, fn.line)
        mid_func = defs_at(migrated, fn.function, fn.new_line)
        after_func = defs_at(after, fn.function, fn.new_line)
        for use in fn.uses:
            was = locate(before, use, before_func, use.line, old, old_func)
            now = locate(after, use, after_func, use.new_line, old, old_func)
            mid = locate(migrated, use, mid_func, use.new_line, old, old_func)
            allowed.update(range(mid.node.lineno, (mid.node.end_lineno or mid.node.lineno) + 1))
            kw_before = keywords_of(was.node, use.transform)
            kw_after = keywords_of(now.node, use.transform)
            meant = jax_reading(use.transform, kw_before, was.func, constants)
            means = jax_reading(use.transform, kw_after, now.func, after_constants)
            if meant != means:
                problems.append(
                    f"{where}:{use.line} {fn.function} ({use.transform} {use.kind}): "
                    f"{meant} became {means}"
                )
            spec = set(SPEC_WORDS.get(use.transform, ()))
            other_before = {k: ast.dump(v) for k, v in kw_before.items() if k not in spec}
            other_after = {k: ast.dump(v) for k, v in kw_after.items() if k not in spec}
            if other_before != other_after:
                problems.append(
                    f"{where}:{use.line} {fn.function}: other keywords {other_before} "
                    f"became {other_after}"
                )
            recorded = {k: set(v) for k, v in use.spec if v}
            if recorded != {k: set(v) for k, v in meant.items() if v}:
                problems.append(
                    f"{where}:{use.line} {fn.function}: the report says {use.spec}, JAX "
                    f"reads {meant}"
                )
    a, b = result.text.split("\n"), after_text.split("\n")
    if len(a) != len(b):
        problems.append(f"{where}: the rewrite of the migrated module moved lines")
    elif not scan_header(original).enabled:
        stray = [n for n, (x, y) in enumerate(zip(a, b), 1) if x != y and n not in allowed]
        if stray:
            problems.append(
                f"{where}: the rewrite changed lines {stray[:5]}, outside the migrated uses"
            )
    return problems


def check_module(
    original: str, where: str, migrate: Callable[[str, str], Migration] = migrate_source
) -> tuple[Migration, list[str]]:
    """Migrate (with ``migrate``: migrate_source, or the corpus's memo of it), then everything the
    issue asks of the result."""
    result = migrate(original, where)
    if not result.changed:
        return result, []
    problems = check_round_trip(original, result, where)
    compile(result.text, where, "exec", dont_inherit=True)
    again = migrate_source(result.text, where)
    if again.changed or again.migrated:
        problems.append(f"{where}: migrating again changes the module")
    return result, problems
