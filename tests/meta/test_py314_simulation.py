"""Python 3.14 readiness, simulated on the Pythons we have (no 3.14 interpreter runs here).

Python 3.14 removed ``ast.Num``, ``ast.Str``, ``ast.Bytes``, ``ast.NameConstant`` and
``ast.Ellipsis`` (with ``Constant.n``/``Constant.s`` and ``NodeVisitor``'s dispatch to
``visit_Num`` and friends). jaxrewrite renders its fragments with astor 0.8.1, which looks those
classes up with ``getattr(ast, name, None)``. Here a fresh interpreter deletes them before astor
or jaxrewrite is imported, so that touching them raises as on 3.14, and every golden case must
still come out byte for byte as expected. A subprocess keeps the deletion away from other tests.

Python 3.14 also adds t-strings, with two node types (``TemplateStr``, ``Interpolation``) that
the engine has never heard of; a second simulation parses f-strings as such nodes and checks
that the engine's tree walkers still find what is inside them.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from golden_cases import ROOT, inputs

REMOVED = ("Num", "Str", "Bytes", "NameConstant", "Ellipsis")
TESTS = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "jaxrewrite"

#: Run first in the child: makes its ``ast`` module look like Python 3.14's.
SIMULATE = textwrap.dedent(
    """
    import ast, json, sys
    REMOVED = tuple(json.loads(sys.argv[1]))
    assert "astor" not in sys.modules and "jaxrewrite" not in sys.modules, sorted(sys.modules)

    # Constant's deprecated aliases and NodeVisitor's visit_Num/visit_Str/... dispatch: gone in 3.14.
    for attr in ("n", "s"):
        if attr in vars(ast.Constant):
            delattr(ast.Constant, attr)
    if "visit_Constant" in vars(ast.NodeVisitor):
        del ast.NodeVisitor.visit_Constant

    _module_getattr = vars(ast).get("__getattr__")  # 3.12/3.13 serve the old names from here, warning
    for name in REMOVED:
        vars(ast).pop(name, None)
        vars(ast).get("_deprecated_globals", {}).pop(name, None)

    def __getattr__(name):
        if name not in REMOVED and _module_getattr is not None:
            return _module_getattr(name)
        raise AttributeError(f"module 'ast' has no attribute {name!r}")

    ast.__getattr__ = __getattr__
    for name in REMOVED:
        try:
            getattr(ast, name)
        except AttributeError:
            continue
        raise SystemExit(f"the simulation left ast.{name} in place")
    try:
        from ast import Num
    except ImportError:
        pass
    else:
        raise SystemExit("the simulation left 'from ast import Num' working")
    """  # noqa: E501
)

#: Then: import astor (recording its warnings), rewrite every golden input, report as JSON.
GOLDEN_RUN = textwrap.dedent(
    """
    import warnings
    report = {"python": sys.version, "astor_import": [], "mismatches": [], "outputs": 0, "errors": 0}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import astor
    report["astor_import"] = [f"{w.category.__name__}: {w.message}" for w in caught]
    # What warns as deprecated now is what breaks next: rewriting must not warn so.
    warnings.simplefilter("error", DeprecationWarning)
    warnings.simplefilter("error", PendingDeprecationWarning)

    sys.path.insert(0, sys.argv[2])
    import golden_cases

    for path in golden_cases.inputs():
        name = golden_cases.case_id(path)
        try:
            text, is_error = golden_cases.render(path)
        except BaseException as err:
            report["mismatches"].append([name, f"raised {type(err).__name__}: {err}"])
            continue
        out_path, err_path = golden_cases.expected_paths(path)
        expected = err_path if is_error else out_path
        if not expected.exists():
            report["mismatches"].append([name, f"no {expected.name}"])
        elif text.encode("utf-8") != expected.read_bytes():
            report["mismatches"].append([name, f"differs from {expected.name}"])
        else:
            report["errors" if is_error else "outputs"] += 1

    # astor names ast.Str outright in one place: rendering an f-string. The simulation must reach
    # it there (jaxrewrite never renders one: see test_render_builds_no_fstring).
    try:
        astor.to_source(ast.parse('f"{x}"'))
    except AttributeError as err:
        report["fstring"] = str(err)
    else:
        report["fstring"] = None
    print(json.dumps(report))
    """  # noqa: E501
)

#: Instead of GOLDEN_RUN: f-strings parse as 3.14's t-string nodes, which the engine does not know.
TEMPLATE_RUN = textwrap.dedent(
    """
    class TemplateStr(ast.expr):
        _fields = ("values",)

    class Interpolation(ast.expr):
        _fields = ("value", "str", "conversion", "format_spec")

    made = [0]

    def node(cls, like, **fields):
        new = cls()
        for key, value in fields.items():
            setattr(new, key, value)
        return ast.copy_location(new, like)

    def convert(tree, spec=False):
        if isinstance(tree, ast.JoinedStr) and not spec:
            made[0] += 1
            values = [
                node(Interpolation, v, value=convert(v.value), str=ast.unparse(v.value),
                     conversion=v.conversion, format_spec=v.format_spec and convert(v.format_spec, True))
                if isinstance(v, ast.FormattedValue) else v
                for v in tree.values
            ]
            return node(TemplateStr, tree, values=values)
        for field, value in ast.iter_fields(tree):
            if isinstance(value, list):
                setattr(tree, field, [convert(v) if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.AST):
                setattr(tree, field, convert(value, field == "format_spec"))
        return tree

    real_parse = ast.parse
    sys.path.insert(0, sys.argv[2])
    from jaxrewrite import rewrite_source
    import golden_cases

    source = sys.stdin.read()
    report = {"plain": rewrite_source(source, "tstrings.py")}
    ast.parse = lambda *args, **kwargs: convert(real_parse(*args, **kwargs))
    report["template"] = rewrite_source(source, "tstrings.py")
    report["made"] = made[0]

    report["mismatches"] = []
    for path in golden_cases.inputs():
        text = path.read_text(encoding="utf-8")
        if 'f"' not in text and "f'" not in text:
            continue
        out, is_error = golden_cases.render(path)
        out_path, err_path = golden_cases.expected_paths(path)
        if out.encode("utf-8") != (err_path if is_error else out_path).read_bytes():
            report["mismatches"].append(golden_cases.case_id(path))
    report["golden_made"] = made[0] - report["made"]
    print(json.dumps(report))
    """  # noqa: E501
)


def _child(body: str, removed: tuple[str, ...] = REMOVED, stdin: str = "") -> dict[str, Any]:
    """Run ``body`` in a fresh interpreter whose ``ast`` lacks ``removed``; its JSON report."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    env.pop("PYTHONWARNINGS", None)
    proc = subprocess.run(
        [sys.executable, "-c", SIMULATE + body, json.dumps(removed), str(TESTS)],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    report: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    return report


def test_golden_cases_are_identical_without_the_removed_ast_classes() -> None:
    report = _child(GOLDEN_RUN)
    assert report["mismatches"] == []
    assert report["outputs"] + report["errors"] == len(inputs()) and report["outputs"] > 0
    assert report["astor_import"] == [], (
        "importing astor warns or fails where 3.14 removed ast names"
    )
    assert report["fstring"] is not None and "'Str'" in report["fstring"], (
        "the simulation did not reach astor"
    )


def test_the_simulation_can_fail() -> None:
    """Removing a class the renderer does use breaks it: the comparison above is no formality."""
    report = _child(GOLDEN_RUN, (*REMOVED, "Constant"))
    assert len(report["mismatches"]) > len(inputs()) // 2, "deleting ast.Constant changed nothing"
    assert all("'Constant'" in why for _, why in report["mismatches"]), report["mismatches"]


def _removed_names_used(source: str, filename: str) -> list[str]:
    """Where ``source`` reaches for the removed names: ``ast.Num``, ``from ast import Num``,
    ``getattr(ast, "Num", ...)``, or a ``visit_Num`` method that 3.14 never calls."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        where = f"{filename}:{getattr(node, 'lineno', '?')}"
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "ast"
        ):
            if node.attr in REMOVED:
                found.append(f"{where}: ast.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "ast":
            found.extend(
                f"{where}: from ast import {a.name}" for a in node.names if a.name in REMOVED
            )
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
        ):
            args = node.args
            if len(args) >= 2 and isinstance(args[1], ast.Constant) and args[1].value in REMOVED:
                found.append(f"{where}: {node.func.id}(..., {args[1].value!r})")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name in {f"visit_{name}" for name in REMOVED}:
                found.append(f"{where}: def {node.name}")
    return found


def test_jaxrewrite_never_names_the_removed_ast_classes() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 20
    used = [
        hit
        for path in files
        for hit in _removed_names_used(path.read_text(encoding="utf-8"), str(path))
    ]
    assert used == []


def test_the_name_check_finds_each_spelling() -> None:
    snippet = textwrap.dedent(
        """
        import ast
        from ast import Str
        a = isinstance(n, ast.Num)
        b = getattr(ast, "Bytes", None)
        class V(ast.NodeVisitor):
            def visit_NameConstant(self, node): ...
        c = ast.Constant  # fine
        """
    )
    assert len(_removed_names_used(snippet, "snippet.py")) == 4


def test_render_builds_no_fstring() -> None:
    """astor renders a JoinedStr through ``ast.Str`` (AttributeError on 3.14); the renderer never
    builds one: every ast class it names is one astor renders without the removed names."""
    tree = ast.parse((PACKAGE / "engine" / "edits" / "render.py").read_text(encoding="utf-8"))
    named = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "ast"
    }
    assert named and "JoinedStr" not in named and "FormattedValue" not in named
    # Dict: the metadata of a Static dataclass field (astor's visit_Dict names no removed class).
    assert named <= {
        "AST",
        "expr",
        "Expr",
        "Tuple",
        "Constant",
        "Load",
        "Name",
        "Call",
        "keyword",
        "Attribute",
        "Lambda",
        "arguments",
        "arg",
        "Dict",
    }, named


TSTRINGS = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static


def body(x, n: Static[int]):
    return x * n


shown = f"{jax.jit(body)(1.0, 3)} and {jax.jit(body)(2.0, n=2)!r:>{jax.vmap(body)(1.0, 4)}}"
"""


def test_unknown_node_types_are_walked_generically() -> None:
    """3.14's t-strings, simulated: call sites inside TemplateStr/Interpolation nodes, which the
    engine has no case for, are rewritten exactly as inside the f-strings it knows."""
    report = _child(TEMPLATE_RUN, stdin=TSTRINGS)
    assert report["made"] >= 1, "the parser was not patched"
    assert report["plain"] != TSTRINGS, (
        "nothing inside the f-string was rewritten: the check is vacuous"
    )
    assert report["plain"].count("static_argnums") == 2
    assert report["template"] == report["plain"]
    assert report["golden_made"] > 0 and report["mismatches"] == []
