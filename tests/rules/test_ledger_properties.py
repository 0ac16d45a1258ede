"""The ledger accounts for every marker: applied, refused and reported together are all of them.

The markers are counted here without the engine (``sites``: plain ``ast`` positions of
annotations whose source text names a marker or a marker alias, found by a regular expression),
so a marker the ledger misses fails the test. Three sources of modules:

* every golden input (``golden/**``);
* the corpus: installed jax and numpy sources with ``Static`` injected at random parameters and
  class fields (seeded);
* generated programs (hypothesis): marker spellings, transforms and containers combined at
  random; for the applied entries of a sample, the parameter is really static when the
  rewritten module runs (it drives ``range``, and traces are counted).

Each entry that is reported by JR008/JR009 has that finding at its line. Capped to run in well
under a minute.
"""

from __future__ import annotations

import ast
import random
import re
import types
import warnings

from corpus_support import corpus_files, read_source
from depth import examples
from golden_cases import GOLDEN
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaxrewrite import NotRewrittenWarning
from jaxrewrite.engine.analysis import Analysis, EntryKind, State
from jaxrewrite.engine.findings import analyze
from jaxrewrite.engine.rewrite import rewrite_source

_WORDS = ("Static", "NoDiff", "STATIC", "NODIFF")
_CONTAINERS = ("TypedDict", "NamedTuple")


def _pattern(names: set[str]) -> re.Pattern[str]:
    return re.compile(r"\b(" + "|".join(sorted(map(re.escape, names))) + r")\b")


def sites(text: str) -> set[tuple[int, int]]:
    """(line, column) of every marker site, by the source text of annotations alone."""
    tree = ast.parse(text)
    names = set(_WORDS)
    for node in ast.walk(tree):  # ``from jaxrewrite import Static as S``
        if (
            isinstance(node, ast.ImportFrom)
            and (node.module or "").partition(".")[0] == "jaxrewrite"
        ):
            names.update(a.asname for a in node.names if a.asname and a.name in _WORDS)
    changed = True
    while changed:  # aliases of aliases
        changed = False
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                target, value = node.targets[0].id, node.value
            elif (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and node.value is not None
            ):
                if "TypeAlias" not in (ast.get_source_segment(text, node.annotation) or ""):
                    continue
                target, value = node.target.id, node.value
            else:
                continue
            if _container(value) or target in names:
                continue
            if _names_marker(value, names):
                names.add(target)
                changed = True
    word = _pattern(names)

    def marked(expr: ast.AST | None) -> bool:
        """The text names a marker, outside ``Callable[...]`` (the callee's parameters)."""
        if expr is None:
            return False
        if (
            isinstance(expr, ast.Subscript)
            and ast.unparse(expr.value).rpartition(".")[2] == "Callable"
        ):
            return False
        if isinstance(expr, ast.Constant):
            return isinstance(expr.value, str) and bool(word.search(expr.value))
        if isinstance(expr, ast.Name):
            return expr.id in names
        if isinstance(expr, ast.Attribute) and expr.attr in names:
            return True
        return any(marked(child) for child in ast.iter_child_nodes(expr))

    found: set[tuple[int, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and marked(node.annotation):
            found.add((node.lineno, node.col_offset + 1))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and marked(node.returns):
            assert node.returns is not None
            found.add((node.returns.lineno, node.returns.col_offset + 1))
        elif isinstance(node, ast.AnnAssign):
            if (
                marked(node.annotation)
                and "TypeAlias" not in (ast.get_source_segment(text, node.annotation) or "")
                or node.value is not None
                and isinstance(node.target, ast.Name)
                and node.target.id in names
            ):
                found.add((node.lineno, node.col_offset + 1))
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            if _container(node.value):
                assert isinstance(node.value, ast.Call)
                found |= _functional_sites(node.value, marked)
            elif node.targets[0].id in names and marked(node.value):
                found.add((node.lineno, node.col_offset + 1))
        elif type(node).__name__ == "TypeAlias" and marked(node.value):
            found.add((node.lineno, node.col_offset + 1))
    return found


def _names_marker(expr: ast.AST, names: set[str]) -> bool:
    if isinstance(expr, ast.Subscript) and ast.unparse(expr.value).rpartition(".")[2] == "Callable":
        return False
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str) and bool(_pattern(names).search(expr.value))
    if isinstance(expr, ast.Name):
        return expr.id in names
    if isinstance(expr, ast.Attribute) and expr.attr in names:
        return True
    return any(_names_marker(child, names) for child in ast.iter_child_nodes(expr))


def _container(value: ast.expr) -> bool:
    func = value.func if isinstance(value, ast.Call) else None
    return func is not None and (ast.unparse(func).rpartition(".")[2] in _CONTAINERS)


def _functional_sites(call: ast.Call, marked: object) -> set[tuple[int, int]]:
    check = marked  # a closure: is this expression marked?
    found: set[tuple[int, int]] = set()
    spec = call.args[1] if len(call.args) > 1 else None
    pairs: list[tuple[ast.AST, ast.expr]] = []
    if isinstance(spec, ast.Dict):
        pairs += [(k, v) for k, v in zip(spec.keys, spec.values) if k is not None]
    elif isinstance(spec, (ast.List, ast.Tuple)):
        pairs += [
            (i.elts[0], i.elts[1])
            for i in spec.elts
            if isinstance(i, (ast.Tuple, ast.List)) and len(i.elts) == 2
        ]
    pairs += [(kw, kw.value) for kw in call.keywords if kw.arg not in (None, "total")]
    for key, value in pairs:
        if check(value):  # type: ignore[operator]
            found.add((key.lineno, key.col_offset + 1))  # type: ignore[attr-defined]
    return found


def _uses_jaxrewrite_markers(text: str) -> bool:
    """The marker words come from jaxrewrite (and nothing else of the module binds them)."""
    if not re.search(
        r"^\s*(from jaxrewrite(\.markers)? import|import jaxrewrite)", text, re.MULTILINE
    ):
        return False
    return not re.search(
        r"^\s*(class|def) (Static|NoDiff)\b|^\s*(Static|NoDiff) = (?!jaxrewrite)",
        text,
        re.MULTILINE,
    )


def accounted(text: str, filename: str) -> Analysis:
    """Analyze as check does and assert the ledger accounts for every site (returned for more)."""
    analysis = analyze(text, filename, require_pragma=False, lint=True)
    ledger = analysis.ledger
    positions = {(e.line, e.col) for e in ledger if e.kind is not EntryKind.IMPORTED}
    expected = sites(text)
    assert expected <= positions, (
        f"{filename}: markers the ledger misses at {sorted(expected - positions)}"
    )
    assert positions <= expected, (
        f"{filename}: ledger entries that are no marker: {sorted(positions - expected)}"
    )
    lines = {(d.line, d.code) for d in analysis.diagnostics}
    for entry in ledger:
        assert entry.state in State
        if entry.state is State.APPLIED:
            assert entry.code is None, entry
            continue
        assert entry.code is not None, entry
        if entry.code in ("JR008", "JR009"):
            assert (entry.line, entry.code) in lines, entry
        if entry.state is State.REFUSED:
            assert entry.code.startswith("JR1"), entry
    return analysis


# -- golden inputs ------------------------------------------------------------------------------

GOLDEN_INPUTS = sorted(p for p in GOLDEN.rglob("*.py") if not p.name.endswith(".out.py"))


def test_every_golden_input_is_accounted_for() -> None:
    checked = 0
    for path in GOLDEN_INPUTS:
        text = path.read_text(encoding="utf-8")
        if not _uses_jaxrewrite_markers(text):
            continue
        try:
            ast.parse(text)
        except SyntaxError:
            continue
        accounted(text, path.relative_to(GOLDEN).as_posix())
        checked += 1
    assert checked > 60


# -- the corpus, with markers injected ------------------------------------------------------------

CORPUS = [path for _, path in corpus_files() if 2_000 < path.stat().st_size < 40_000]


def _inject(text: str, rng: random.Random) -> str | None:
    """``text`` with ``Static`` on a few random parameters and class fields, or None."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    if re.search(r"\b(Static|NoDiff|STATIC|NODIFF)\b", text):
        return None
    lines = text.splitlines(keepends=True)
    edits: list[tuple[int, int, int, str]] = []  # (line, start col, end col, replacement)
    args = [a for a in ast.walk(tree) if isinstance(a, ast.arg) and a.arg not in ("self", "cls")]
    fields = [
        s
        for s in ast.walk(tree)
        if isinstance(s, ast.ClassDef)
        for s in s.body
        if isinstance(s, ast.AnnAssign)
    ]
    for arg in rng.sample(args, min(4, len(args))):
        if arg.annotation is None:
            end = arg.col_offset + len(arg.arg)
            edits.append((arg.lineno, end, end, ": Static"))
        elif arg.annotation.lineno == arg.annotation.end_lineno:
            a = arg.annotation
            assert a.end_col_offset is not None
            edits.append(
                (
                    a.lineno,
                    a.col_offset,
                    a.end_col_offset,
                    f"Static[{ast.get_source_segment(text, a)}]",
                )
            )
    for stmt in rng.sample(fields, min(2, len(fields))):
        a = stmt.annotation
        if a.lineno == a.end_lineno and a.end_col_offset is not None:
            edits.append(
                (
                    a.lineno,
                    a.col_offset,
                    a.end_col_offset,
                    f"Static[{ast.get_source_segment(text, a)}]",
                )
            )
    if not edits:
        return None
    for line, start, end, new in sorted(edits, reverse=True):
        raw = lines[line - 1]
        # col offsets are UTF-8 byte offsets
        data = raw.encode("utf-8")
        lines[line - 1] = (data[:start] + new.encode("utf-8") + data[end:]).decode("utf-8")
    return "# jaxrewrite: enable\n" + "".join(lines) + "\nfrom jaxrewrite import Static\n"


def test_the_corpus_with_injected_markers_is_accounted_for() -> None:
    rng = random.Random(21)
    sample = rng.sample(CORPUS, min(40, len(CORPUS)))
    checked = 0
    for path in sample:
        injected = _inject(read_source(path), rng)
        if injected is None:
            continue
        try:
            ast.parse(injected)
        except SyntaxError:
            continue
        analysis = accounted(injected, path.name)
        assert analysis.ledger
        checked += 1
    assert checked >= 10


# -- generated programs ---------------------------------------------------------------------------

SPELLINGS = (
    "Static[int]",
    "Annotated[int, STATIC]",
    "SInt",
    '"Static[int]"',
    'Annotated[int, Static, "doc"]',
    "NoDiff[float]",
    "Static",
)
USES = ("@jax.jit", "call", "grad", "none", "@my_jit", "eval_shape")


@st.composite
def programs(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A module with a few marked defs, used in random ways; the names of its defs under jit."""
    out = [
        "# jaxrewrite: enable",
        "from typing import Annotated, NamedTuple",
        "import jax",
        "from jaxrewrite import STATIC, NoDiff, Static",
        "SInt = Static[int]",
        "def my_jit(f):",
        "    return f",
    ]
    jitted = []
    for i in range(draw(st.integers(1, 3))):
        spelling = draw(st.sampled_from(SPELLINGS))
        use = draw(st.sampled_from(USES))
        name = f"f{i}"
        if use.startswith("@"):
            out.append(use)
        out.append(f"def {name}(x, n: {spelling}):")
        out.append("    for _ in range(n if isinstance(n, int) else 1):")
        out.append("        x = x + 1")
        out.append("    COUNT[0] += 1")
        out.append("    return x")
        if use == "call":
            out.append(f"{name} = jax.jit({name})")
        elif use == "grad":
            out.append(f"g{i} = jax.grad({name})")
        elif use == "eval_shape":
            out.append(f"j{i} = jax.jit({name})")
            out.append(f"s{i} = jax.eval_shape({name}, 1.0, 2)")
        if use in ("@jax.jit", "call") and spelling in (
            "Static[int]",
            "Annotated[int, STATIC]",
            "SInt",
            '"Static[int]"',
        ):
            jitted.append(name)
    if draw(st.booleans()):
        field = draw(st.sampled_from(("Static[int]", "int", "NoDiff[int]")))
        out += ["class Cfg(NamedTuple):", f"    k: {field}", "    m: int"]
        if draw(st.booleans()):
            out += ["@jax.jit", "def h(x, cfg: Cfg):", "    return x * cfg.m"]
    if draw(st.booleans()):
        out.append("total: Static[int] = 3")
    return "\n".join(out) + "\n", jitted


@settings(
    max_examples=examples(60),
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(programs())
def test_generated_programs_are_accounted_for(program: tuple[str, list[str]]) -> None:
    text, _ = program
    accounted(text, "generated.py")


@settings(
    max_examples=examples(8),
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(programs())
def test_applied_parameters_are_static_at_run_time(program: tuple[str, list[str]]) -> None:
    """For the jitted defs whose marker the ledger says is applied: two calls with one static
    value trace once, a new value traces again, and ``range(n)`` works (a tracer would raise)."""
    text, jitted = program
    analysis = accounted(text, "generated.py")
    applied = {
        e.name.partition(".")[0]
        for e in analysis.ledger
        if e.state is State.APPLIED and e.kind is EntryKind.PARAMETER
    }
    if analysis.errors or not (applied & set(jitted)):
        return
    module = types.ModuleType("generated_ledger")
    module.__dict__["COUNT"] = [0]
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", NotRewrittenWarning
        )  # exec'd text is never the hook's: expected
        exec(compile(rewrite_source(text, "generated.py"), "generated.py", "exec"), module.__dict__)  # noqa: S102
    RAN.append(text)
    for name in sorted(applied & set(jitted)):
        fn = module.__dict__[name]
        count = module.__dict__["COUNT"]
        count[0] = 0
        fn(1.0, 2)
        fn(2.0, 2)
        assert count[0] == 1, (name, text)
        fn(1.0, 3)
        assert count[0] == 2, (name, text)


RAN: list[str] = []


def test_the_run_time_sample_is_no_vacuous_one() -> None:
    if not RAN:
        test_applied_parameters_are_static_at_run_time()
    assert RAN


def test_sites_counts_what_it_should() -> None:
    """The independent counter is no vacuous one."""
    text = (
        "from jaxrewrite import Static\nS = Static[int]\nclass C:\n    a: S\n    b: int\n"
        "def f(x, n: Static, m: 'S', k: int) -> S:\n    y: Static[int] = 1\n"
    )
    assert sites(text) == {(2, 1), (4, 5), (6, 10), (6, 21), (6, 40), (7, 5)}
