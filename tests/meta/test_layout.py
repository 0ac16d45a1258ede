"""tests/ is laid out like the package (issue 53 item 5), and what names a test file finds it.

Each test file sits in the folder of the part of jaxrewrite it tests: ``engine`` (the analysis
and the rewrite, with the run-time modules the rewrite writes calls to: markers, leaves, header),
``rules`` (the rules ``check`` reports: ``engine/findings``, ``engine/rulebook``), ``hook`` (with
``notrewritten``), ``commands`` (with ``cli`` and ``config``), ``migrate``, ``integrations``, and
``meta`` for what is about the project rather than one part (layers, docs, packaging, types, CI).
A support module sits beside the tests that use it, at tests/ only when several folders share it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"

#: The folders of tests/: each a part of the package, but ``rules`` (engine/findings and
#: engine/rulebook) and ``meta`` (the project itself).
PARTS = ("engine", "rules", "hook", "commands", "migrate", "integrations", "meta")

#: The folders that hold programs as data (cases, corpora, type-checked samples), not tests.
DATA = ("dataflow_corpus", "tracetime_cases", "typing")

#: The files that name test paths for a person or a CI leg to run.
NAMERS = (".ci/run", ".ci/py314/run", "tox.ini", "pyproject.toml", "README.md")


def _code(folder: Path) -> list[Path]:
    """The Python files of the suite under ``folder``: tests, support modules, conftest.py."""
    return [
        path
        for path in sorted(folder.rglob("*.py"))
        if not set(DATA) & set(path.relative_to(folder).parts)
    ]


def misplaced(tests: Path) -> list[str]:
    """The test files of ``tests`` outside the folders of ``PARTS``, and repeated file names
    (pytest imports each test file by its name: no ``__init__.py``; tests/conftest.py names
    files by name), with their paths."""
    files = [path for path in _code(tests) if path.name.startswith("test_")]
    names = [path.name for path in files]
    return [
        path.relative_to(tests).as_posix()
        for path in files
        if path.relative_to(tests).parts[0] not in PARTS or names.count(path.name) > 1
    ]


def _importers(tests: Path, modules: set[str]) -> dict[str, set[str]]:
    """For each module of ``modules``, the folders (relative to ``tests``) of its importers."""
    found: dict[str, set[str]] = {name: set() for name in modules}
    for path in _code(tests):
        folder = path.parent.relative_to(tests).as_posix()
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        except SyntaxError:  # a case for another Python, kept beside its test
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                # Code a child runs: helpers_hook's children import it by name.
                names = re.findall(r"\bimport (\w+)", node.value)
            else:
                continue
            for name in names:
                if name in found and name != path.stem:
                    found[name].add(folder)
    return found


def astray(tests: Path) -> dict[str, list[str]]:
    """The support modules of ``tests`` that are not beside their users, with the folders that
    import them: one in a part's folder is imported from that folder only (pytest puts a test
    file's own folder on ``sys.path``, tests/conftest.py puts tests/ there); one at tests/ is
    shared by several folders (tests/ itself counts as one), or it belongs beside its user. A
    module no file imports is a case, not a support module."""
    support = {
        path.stem: path.parent.relative_to(tests).as_posix()
        for path in _code(tests)
        if not path.name.startswith("test_") and path.name != "conftest.py"
    }
    used = _importers(tests, set(support))
    return {
        name: sorted(used[name])
        for name, home in sorted(support.items())
        if used[name] and (len(used[name]) < 2 if home == "." else used[name] != {home})
    }


def test_every_test_file_sits_in_a_part() -> None:
    assert misplaced(TESTS) == []
    packages = {p.parent.name for p in (REPO / "jaxrewrite").glob("*/__init__.py")}
    assert set(PARTS) - {"rules", "meta"} <= packages, sorted(packages)


def test_support_modules_sit_beside_the_tests_that_use_them() -> None:
    assert astray(TESTS) == {}


def test_the_layout_checks_can_fail(tmp_path: Path) -> None:
    files = {
        "test_flat.py": "",
        "engine/test_a.py": "import shared\nimport mine\n",
        "hook/test_a.py": "",
        "hook/test_b.py": "from mine import x\n",
        "misc/test_c.py": "",
        "engine/typing/test_data.py": "",
        "shared.py": "",
        "engine/mine.py": "",
        "hook/child.py": "",
        "hook/test_d.py": "CODE = 'import child'\n",
        "rules/case.py": "import jax\n",
        "rules/newer.py": "x = t'{1}' if True else print 1\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert misplaced(tmp_path) == [
        "engine/test_a.py",
        "hook/test_a.py",
        "misc/test_c.py",
        "test_flat.py",
    ]
    assert astray(tmp_path) == {"mine": ["engine", "hook"], "shared": ["engine"]}


def test_every_test_path_named_for_running_exists() -> None:
    """CI's legs, tox and the docs name test files by path; a move must take them along."""
    named = set()
    for where in [*NAMERS, *(p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md"))]:
        text = (REPO / where).read_text(encoding="utf-8")
        for path in re.findall(r"\btests/[\w/]+(?:\.py)?\b", text):
            named.add((where, path))
    assert len({path for _, path in named}) > 20, named
    missing = sorted((where, path) for where, path in named if not (REPO / path).exists())
    assert missing == []
