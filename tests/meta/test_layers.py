"""The package's import graph has no cycle (issue 19's "done when"; issue 53: type-only ones too).

Why read the source rather than import: an import cycle that only closes through a function-level
import (``def f(): from jaxrewrite.hook import finder``) or under ``if TYPE_CHECKING:`` never fails
at import time, yet ties the two modules together as much as a top-level one does: every
``import``/``from ... import`` of a jaxrewrite module counts, wherever it stands. The run-time
graph (``typing=False``) leaves out ``if TYPE_CHECKING:`` bodies, for the rules about what runs.
``from pkg import name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "jaxrewrite"


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Dotted name -> file, for every module of the package."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _nodes(tree: ast.AST, typing: bool) -> list[ast.AST]:
    """Every node; without ``typing``, leaving out the bodies of ``if TYPE_CHECKING:`` blocks."""
    if typing:
        return list(ast.walk(tree))
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                todo.extend(child.orelse)
                continue
            todo.append(child)
    return out


def graph(root: Path = PACKAGE, typing: bool = True) -> dict[str, set[str]]:
    """Module -> the package modules it imports (``typing``: type-only imports too)."""
    known = modules(root)
    edges: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        for node in _nodes(ast.parse(path.read_text(), str(path)), typing):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    here = name.split(".") if is_package else name.split(".")[:-1]
                    here = here[: len(here) - node.level + 1]
                    base = ".".join([*here, base] if base else here)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in known else base)
            edges[name].update(t for t in targets if t in known and t != name)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(edges[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_function_level_imports() -> None:
    edges = graph()
    assert (
        "jaxrewrite.engine.rewrite" in edges["jaxrewrite.hook.pycfile"]
    )  # imported on a cache miss only
    assert "jaxrewrite.header" in edges["jaxrewrite.hook.finder"]


def test_the_cycle_finder_finds_cycles() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(edges) == [["a", "b", "c"]]


def test_no_import_cycle_in_the_package() -> None:
    """Type-only imports included: a type lives in the module that owns it (``TreePass`` beside
    the walk in ``engine/build.py``, check.s ``Config`` in ``config.py``), never imported back."""
    assert cycles(graph()) == []


def test_a_type_only_import_closes_a_cycle(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import A\n"
    )
    (package / "c.py").write_text("def f():\n    from pkg import d\n")
    (package / "d.py").write_text("import pkg.c\n")
    assert cycles(graph(package)) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"]]
    assert cycles(graph(package, typing=False)) == [["pkg.c", "pkg.d"]]


#: The layers, lowest first (docs/design.md): a module imports only from its own layer or below.
#: The top level (``jaxrewrite/__init__``, ``markers``, ``leaves``...) is not a layer: it is the
#: public API and the run-time helpers, which any layer may import and which import layers lazily.
LAYERS = ["engine", "migrate", "hook", "integrations", "commands"]


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in LAYERS else None


def test_each_layer_imports_only_from_below() -> None:
    wrong = []
    for module, targets in graph().items():
        mine = _layer(module)
        if mine is None:
            continue
        for target in targets:
            theirs = _layer(target)
            if theirs is None or LAYERS.index(theirs) <= LAYERS.index(mine):
                continue
            wrong.append(f"{module} -> {target}")
    assert wrong == []


#: engine/'s places along the data path, lowest first (docs/design.md): a folder (``read``) or one
#: of the three modules at engine/'s top level. A module imports only from its own place or below:
#: what JAX accepts and what each code says (``rulebook``) imports nothing else of the engine; the
#: reading (``read``) knows no use, no finding and no edit; the ``analysis`` value knows the
#: reading only; the walk (``walk``) builds it; ``build`` runs the walk and the passes it is
#: handed; an edit (``edits``) never asks a finding pass; the passes (``findings``) may spell a
#: fix as an edit would (``edits.render``); ``rewrite`` is the hook's whole path.
ENGINE_PLACES = ["rulebook", "read", "analysis", "walk", "build", "edits", "findings", "rewrite"]


def _place(module: str) -> str | None:
    """The engine place of a dotted module name (None for engine/__init__ and outside the
    engine)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["jaxrewrite", "engine"] else None


def _misplaced(edges: dict[str, set[str]]) -> list[str]:
    """Every import of an engine module from a place above the importer's."""
    wrong = []
    for module, targets in edges.items():
        mine = _place(module)
        if mine is not None and mine not in ENGINE_PLACES:
            wrong.append(f"{module}: in no place")
            continue
        for target in targets:
            theirs = _place(target)
            if (
                mine is not None
                and theirs in ENGINE_PLACES
                and ENGINE_PLACES.index(theirs) > ENGINE_PLACES.index(mine)
            ):
                wrong.append(f"{module} -> {target}")
    return sorted(wrong)


def test_each_engine_place_imports_only_from_below() -> None:
    assert _misplaced(graph(typing=False)) == []


def test_every_engine_module_is_in_its_place() -> None:
    """No module at engine/'s top level but the three places that are one module each, and no
    folder that is not a place: a module put back flat, or a new folder, fails here first."""
    engine = PACKAGE / "engine"
    places = {p for p in ENGINE_PLACES if (engine / p).is_dir()}
    singles = {p for p in ENGINE_PLACES if (engine / f"{p}.py").is_file()}
    assert places | singles == set(ENGINE_PLACES) and not places & singles
    top = {p.stem for p in engine.glob("*.py")} - {"__init__"}
    assert top == singles
    folders = {p.name for p in engine.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == places
    assert all((engine / p / "__init__.py").is_file() for p in places)


DESIGN = PACKAGE.parent / "docs" / "design.md"


def _design_rows(text: str) -> list[str]:
    """The paths (relative to engine/) named in the first cell of the engine's tables in
    docs/design.md, between "## The engine, place by place" and the next section."""
    section = text.split("## The engine, place by place", 1)[1].split("\n## ", 1)[0]
    named = []
    for line in section.splitlines():
        if line.startswith("| `"):
            named += re.findall(r"`([\w/]+\.(?:py|json)|[\w/]+/)`", line.split(" | ")[0])
    return named


def test_design_names_every_engine_module_at_its_path() -> None:
    """docs/design.md draws the layout: each engine module (and the table's JSON) has a row at
    the path it lives at, and every row names a file that exists; the three one-module places
    are their own paragraphs (``analysis.py``, ``build.py``, ``rewrite.py``)."""
    engine = PACKAGE / "engine"
    text = DESIGN.read_text(encoding="utf-8")
    named = _design_rows(text)
    files = {
        p.relative_to(engine).as_posix()
        for p in [*engine.rglob("*.py"), *engine.rglob("*.json")]
        if p.name != "__init__.py" or p.parent.name == "findings"
    }
    singles = {f"{name}.py" for name in ENGINE_PLACES if (engine / f"{name}.py").is_file()}
    listed = {n for n in named if not n.endswith("/")}
    folders = tuple(n for n in named if n.endswith("/"))  # a row for a folder of like modules
    placed = {f for f in files if f.startswith(folders) and f.rpartition("/")[0] + "/" in folders}
    assert sorted(files - singles - listed - placed) == []  # a module the design does not place
    assert sorted(n for n in named if not (engine / n).exists()) == []  # a row for no file
    assert all(f"**`{name}`" in text for name in singles)
    assert _design_rows(
        "## The engine, place by place\n| `read/x.py`, `walk/specs/` | a |\n## Next\n| `y.py` |"
    ) == ["read/x.py", "walk/specs/"]


def test_the_place_rules_fail_on_a_module_in_the_wrong_place() -> None:
    """The check itself: a pass put in ``read`` (it reads the analysis), an edit that asks a pass,
    are named; a pass that spells a fix as the edit would is not."""
    edges = {
        "jaxrewrite.engine.read.lint": {
            "jaxrewrite.engine.analysis",
            "jaxrewrite.engine.rulebook.table",
        },
        "jaxrewrite.engine.edits.render": {
            "jaxrewrite.engine.findings.ledger",
            "jaxrewrite.engine.read.source",
        },
        "jaxrewrite.engine.findings.imported": {
            "jaxrewrite.engine.edits.render",
            "jaxrewrite.engine.build",
        },
        "jaxrewrite.engine.stray": set(),
    }
    assert _misplaced(edges) == [
        "jaxrewrite.engine.edits.render -> jaxrewrite.engine.findings.ledger",
        "jaxrewrite.engine.read.lint -> jaxrewrite.engine.analysis",
        "jaxrewrite.engine.stray: in no place",
    ]


def test_notrewritten_imports_nothing_of_the_hook() -> None:
    """The warning's module asks ``sys.modules`` for the finder, never imports it; the
    finder -> notrewritten -> finder cycle of issue 19 item 5 stays gone."""
    assert not {m for m in graph()["jaxrewrite.notrewritten"] if m.startswith("jaxrewrite.hook")}
    assert "jaxrewrite.notrewritten" not in graph()["jaxrewrite.hook.pycfile"]


def _reach(edges: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for succ in edges[todo.pop()]:
            if succ not in seen:
                seen.add(succ)
                todo.append(succ)
    return seen


def test_one_route_from_text_to_code() -> None:
    """Issue 51 item 3: the hook compiles ``rewrite_source``'s text; no module of a second compile
    route exists, and the pipeline reaches the engine only through the analysis and the rewrite."""
    edges = graph()
    assert not [m for m in edges if m.startswith(("jaxrewrite.hook.fast", "jaxrewrite.hook.index"))]
    assert not {
        m for m in _reach(edges, "jaxrewrite.hook.pycfile") if m.startswith("jaxrewrite.hook.")
    }


#: The spec math and its vocabulary (issue 19 item 2): forward completion and reverse reading,
#: read by the walk, check's trace-time pass and migrate.
SPEC_MODULES = (
    "jaxrewrite.engine.walk.specs",
    "jaxrewrite.engine.read.literals",
    "jaxrewrite.engine.read.handwritten",
)
#: The analysis value and the walk that builds it: what the spec modules are read by.
WALK = frozenset(
    f"jaxrewrite.engine.{name}"
    for name in (
        "analysis",
        "build",
        "walk.walker",
        "walk.callsites",
        "findings.tracetime",
        "findings.checks.no_transform",
        "edits.render",
        "rewrite",
    )
)


def _spec_modules(edges: dict[str, set[str]]) -> list[str]:
    return sorted(m for m in edges if any(m == s or m.startswith(s + ".") for s in SPEC_MODULES))


def test_spec_modules_import_neither_the_analysis_nor_the_walk() -> None:
    """A spec kind reads a use and a signature; the analysis and the walk read it, never the reverse
    (``analysis.Use`` is named for the type checker only)."""
    edges = graph(typing=False)
    assert len(_spec_modules(edges)) >= 3
    wrong = {m: sorted(_reach(edges, m) & WALK) for m in _spec_modules(edges)}
    assert {m: w for m, w in wrong.items() if w} == {}


def test_every_spec_kind_has_its_functions() -> None:
    """The dispatch is a table keyed by the row's ``spec`` field: every kind has its ``complete``
    and ``read``, and every row's kind is in it."""
    from jaxrewrite.engine.rulebook.table import FAMILIES, SpecKind
    from jaxrewrite.engine.walk import specs

    assert set(specs.KINDS) == set(SpecKind)
    assert all(callable(f) for pair in specs.KINDS.values() for f in pair)
    assert {row.spec for rows in FAMILIES.values() for row in rows.values()} == set(SpecKind)


#: The finding passes (issue 41 item 3): the rules' checks as one pass (``checks.registry``) and
#: the trace-time pass; the front end hands them to ``build_analysis`` (``engine/findings/``).
FINDING_PASSES = ("checks.registry", "tracetime")


def test_the_analysis_imports_no_finding_pass() -> None:
    """``engine.build`` runs the passes it is handed and reaches none of their modules, nor any
    rule's; only the entry table and the passes' own front ends (``findings.trace_findings``,
    check's module-without-jaxrewrite route) name them."""
    import jaxrewrite.engine.findings.checks.registry as registry
    import jaxrewrite.engine.findings.tracetime as tracetime

    edges = graph()
    passes = {f"jaxrewrite.engine.findings.{name}" for name in FINDING_PASSES}
    passes |= {m.__name__ for m in registry.RULES}
    assert passes <= set(edges)
    assert sorted(_reach(edges, "jaxrewrite.engine.build") & passes) == []
    assert sorted(_reach(edges, "jaxrewrite.engine.analysis") & passes) == []
    assert callable(tracetime.PASS) and callable(registry.rules_pass(None))
    # and no pass imports the walk back at run time (its types, under TYPE_CHECKING, only)
    runtime = graph(typing=False)
    assert sorted(m for m in passes if "jaxrewrite.engine.build" in runtime[m]) == []


#: The modules the command line dispatches to, one per command (``jaxrewrite/cli.py``); the rest
#: of ``commands/`` is their shared edge (files...).
COMMANDS = ("run", "show", "check", "migrate", "compile")


def test_no_command_imports_another() -> None:
    """What two commands share lives a layer down (``commands/files.py``,
    ``engine/findings/__init__.py``), so that a command is read, changed and imported alone:
    ``show`` once imported ``check`` (``lint_analysis``) and ``run`` (``safe_path``), ``compile``
    imported ``run``."""
    edges = graph()
    commands = {f"jaxrewrite.commands.{name}" for name in COMMANDS}
    assert commands <= set(edges)
    cli = (PACKAGE / "cli.py").read_text(encoding="utf-8")
    assert all(
        f'"{name}"' in cli or f"commands import {name}" in cli or f"commands.{name} " in cli
        for name in COMMANDS
    )
    assert {m: sorted(edges[m] & commands) for m in sorted(commands) if edges[m] & commands} == {}


TESTS = Path(__file__).resolve().parents[1]

#: The folders of tests/ that hold programs as data (cases, corpora), not test code.
DATA = ("dataflow_corpus", "tracetime_cases", "typing")


def test_no_test_file_imports_another(tmp_path: Path) -> None:
    """Tests share helpers through support modules (``tests/*_support.py``, ``golden_cases.py``...),
    never by importing another test file, wherever the import stands (issue 41 item 6)."""
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "test_a.py").write_text("def f():\n    from test_b import helper\n")
    assert _test_imports(tmp_path) == ["engine/test_a.py:2 imports test_b"]
    assert _test_imports(TESTS) == []


def _test_imports(folder: Path) -> list[str]:
    """Every import of a ``test_*`` module by a Python file under ``folder`` (not its data)."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        if set(DATA) & set(path.relative_to(folder).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                if name.rpartition(".")[2].startswith("test_"):
                    where = path.relative_to(folder).as_posix()
                    found.append(f"{where}:{node.lineno} imports {name}")
    return found


if __name__ == "__main__":
    for component in cycles(graph()):
        print(" <-> ".join(component))


#: What reading a marker takes: the readers (``MarkerReader``, the ledger's mentions, the
#: prefilter's names...) and the names a marker is recognised by.
_MARKER_READERS = {
    "MarkerReader", "MarkIndex", "_mentions", "may_mark", "marker_names", "reaches_marker",
    "inner_type", "marker_name", "names_marker", "names_made_from",
}  # fmt: skip
_MARKER_NAMES = {"MARKER_TYPES", "MARKER_CONSTANTS", "MARKER_EXPORTS", "marker_name"}


def test_only_the_index_reads_markers() -> None:
    """Issue 41: one reading of markers, ``engine/read/markers.py``; no other module defines a
    reader or recognises a marker by its exported name (``table.py`` holds the names)."""
    for name, path in modules().items():
        if name in ("jaxrewrite.engine.read.markers", "jaxrewrite.engine.rulebook.table"):
            continue
        tree = ast.parse(path.read_text(), str(path))
        defined = {
            n.name
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        }
        assert not defined & _MARKER_READERS, (name, defined & _MARKER_READERS)
        named = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        named |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        assert not named & _MARKER_NAMES, (name, named & _MARKER_NAMES)
