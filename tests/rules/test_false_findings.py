"""Findings `check` must not make (issue 42, item 3), each failing on the code before the fix.

- JR009 on a name imported by absolute import from a sibling module of the checked package
  (``from pkg.types import X`` in pkg/mod.py), which the import reader now finds from the
  package's root; a sibling that does hold a marker alias is still JR009.
- JR008 on the entries of a per-leaf container reached through a module-level alias
  (``Alias = Layer``, ``X: TypeAlias = Layer``), whose split is applied: the ledger now reads the
  walk's record of the fields it split, by node, not the class's name in the annotation.
- JR102 printed twice for ``NotRequired[Static[int]]``: a class read once and refused is not read
  again for its field forms.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support import jaxrewrite as run_jaxrewrite
from support import write

import jaxrewrite
from jaxrewrite.commands.check import check_text

MOD = """\
# jaxrewrite: enable
import jax
from {source} import X, Steps
from jaxrewrite import Static


@jax.jit
def f(x: X, n: Static[int]):
    return x * n


@jax.jit
def g(x, n: Steps):
    return x * n
"""

TYPES = """\
from typing import TypeAlias

import jax

X: TypeAlias = jax.Array
Steps = int
"""


@pytest.mark.parametrize("source", ["pkg.types", "pkg.sub.types", ".types"])
@pytest.mark.parametrize("run_from", ["root", "package"])
def test_a_sibling_imported_by_absolute_name_is_read(
    tmp_path: Path, source: str, run_from: str
) -> None:
    folder = tmp_path / "pkg" / "sub" if "sub" in source else tmp_path / "pkg"
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "sub" / "__init__.py", "")
    write(folder / "types.py", TYPES)
    write(folder / "mod.py", MOD.format(source=source))
    cwd = tmp_path if run_from == "root" else folder
    done = run_jaxrewrite("check", str(folder / "mod.py"), cwd=cwd)
    assert (done.returncode, done.stdout.strip()) == (0, "All checks passed!"), (
        done.stdout + done.stderr
    )


def test_a_sibling_that_holds_a_marker_alias_is_still_jr009(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "__init__.py", "")
    write(
        tmp_path / "pkg" / "types.py",
        TYPES.replace("Steps = int", "from jaxrewrite import Static\nSteps = Static[int]"),
    )
    write(tmp_path / "pkg" / "mod.py", MOD.format(source="pkg.types"))
    done = run_jaxrewrite("check", "pkg/mod.py", "--select", "JR009", cwd=tmp_path)
    assert (
        "JR009" in done.stdout
        and "'Steps'" in done.stdout
        and "an alias of a marker" in done.stdout
    ), done.stdout


LEAVES = """\
# jaxrewrite: enable
from typing import NamedTuple, TypedDict, TypeAlias

import jax
from jaxrewrite import Static


class Layer(TypedDict):
    w: jax.Array
    n: Static[int]


class Pair(NamedTuple):
    a: jax.Array
    k: Static[int]


class Outer(TypedDict):
    inner: "Inner2"


class Inner2(TypedDict):
    m: Static[int]


Alias = Layer
Annotated_: TypeAlias = Layer
PairAlias = Pair
OuterAlias = Outer


@jax.jit
def f(p: Alias, q: Annotated_, r: PairAlias, s: OuterAlias):
    return p["w"] * p["n"] + q["w"] + r.a * r.k + s["inner"]["m"]
"""


def test_per_leaf_entries_reached_through_an_alias_are_applied() -> None:
    analysis = jaxrewrite.analyze(LEAVES, "m.py", lint=True)
    assert [(d.code, d.line) for d in analysis.diagnostics] == []
    assert {leaf.param.name for use in analysis.uses for leaf in use.leaves} == {"p", "q", "r", "s"}


def test_a_nested_marker_in_a_typeddict_is_reported_once() -> None:
    source = (
        "# jaxrewrite: enable\nfrom typing import TypedDict\n"
        "from typing_extensions import NotRequired\n"
        "from jaxrewrite import Static\n\n\nclass T(TypedDict):\n    m: NotRequired[Static[int]]\n"
    )
    assert [d.code for d in jaxrewrite.analyze(source, "m.py", lint=True).diagnostics] == ["JR102"]


ALIASES = """\
from jaxrewrite import Static

Steps = Static[int]
"""

USES = {
    "relative module": (
        "from . import aliases as al\n\n\n@jax.jit\ndef f(x, n: al.Steps):\n    return x * n\n"
    ),
    "absolute module": (
        "import pkg.aliases as al\n\n\n@jax.jit\ndef f(x, n: al.Steps):\n    return x * n\n"
    ),
    "package attribute": (
        "import pkg.aliases\n\n\n@jax.jit\ndef f(x, n: pkg.aliases.Steps):\n    return x * n\n"
    ),
    "from package": (
        "from pkg import aliases\n\n\n@jax.jit\ndef f(x, n: 'aliases.Steps'):\n    return x * n\n"
    ),
}


@pytest.mark.parametrize("use", USES, ids=list(USES))
def test_a_marker_alias_reached_as_a_module_attribute_is_jr009_at_the_use(
    tmp_path: Path, use: str
) -> None:
    """Issue 42, item 8: ``n: al.Steps`` is traced (jaxrewrite reads only the module's own
    aliases), and check said so only at the alias's own module (JR008), not where it acts."""
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "aliases.py", ALIASES)
    write(tmp_path / "pkg" / "mod.py", "# jaxrewrite: enable\nimport jax\n" + USES[use])
    done = run_jaxrewrite("check", "pkg/mod.py", "--select", "JR009", cwd=tmp_path)
    spelled = re.search(r"n: '?([\w.]+)", USES[use]).group(1)  # type: ignore[union-attr]
    assert f"pkg/mod.py:7:13: JR009 {spelled!r} in the annotation of 'n'" in done.stdout, (
        done.stdout + done.stderr
    )


# Issue 55: a class a library re-exports (``from .core import Op as Op`` in its ``__init__``, as
# lineax, equinox and haliax do) or that the import renames was JR009, "not read"; a marker alias
# reached the same ways is still JR009, read and named where it is defined.
CORE = """\
from jaxrewrite import Static


class Op:
    pass


Steps = Static[int]
"""

#: The package's files besides ``pk/core.py``, for each way of re-exporting its names.
EXPORTS = {
    "from": {"pk/__init__.py": "from .core import Op, Steps\n"},
    "as itself": {"pk/__init__.py": "from .core import Op as Op, Steps as Steps\n"},
    "renamed": {"pk/__init__.py": "from .core import Op as Op2, Steps as Steps2\n"},
    "star": {"pk/__init__.py": "from .core import *\n"},
    "star of __all__": {
        "pk/__init__.py": "from .core import *\n",
        "pk/core.py": CORE + "__all__ = ['Op', 'Steps']\n",
    },
    "two hops": {"pk/__init__.py": "from pk.mid import *\n", "pk/mid.py": "from .core import *\n"},
    # mid runs while pk is half made, and gets what pk bound so far: core's names
    "star cycle": {
        "pk/__init__.py": "from .core import *\nfrom .mid import *\n",
        "pk/mid.py": "from . import *\n",
    },
}

USE = """\
# jaxrewrite: enable
import jax
{imports}


@jax.jit
def f(x: {op}, n: {steps}):
    return x
"""


@pytest.mark.parametrize("rename", [False, True], ids=["as exported", "renamed here"])
@pytest.mark.parametrize("exports", EXPORTS, ids=list(EXPORTS))
def test_a_re_exported_class_is_followed_and_a_marker_alias_still_jr009(
    tmp_path: Path, exports: str, rename: bool
) -> None:
    files = {"pk/core.py": CORE, **EXPORTS[exports]}
    op, steps = ("Op2", "Steps2") if exports == "renamed" else ("Op", "Steps")
    names = f"{op} as MyOp, {steps} as MySteps" if rename else f"{op}, {steps}"
    for name, text in files.items():
        write(tmp_path / name, text)
    shown = ("MyOp", "MySteps") if rename else (op, steps)
    use = USE.format(imports=f"from pk import {names}", op=shown[0], steps=shown[1])
    write(tmp_path / "main.py", use)
    done = run_jaxrewrite("check", "main.py", cwd=tmp_path)
    assert done.stdout.splitlines()[:-1] == [
        f"main.py:7:{15 + len(shown[0])}: JR009 {shown[1]!r} in the annotation of 'n' is an "
        "alias of a marker in pk.core, but jaxrewrite reads only this module's aliases, so its "
        "markers do nothing here: define it in this module (or write Static[...] here)"
    ], done.stdout + done.stderr


def test_a_cycle_of_re_exports_ends_and_is_jr009(tmp_path: Path) -> None:
    write(tmp_path / "pk" / "__init__.py", "from .a import Op\n")
    write(tmp_path / "pk" / "a.py", "from .b import Op\n")
    write(tmp_path / "pk" / "b.py", "from .a import *\n")
    write(tmp_path / "main.py", USE.format(imports="from pk import Op", op="Op", steps="int"))
    done = run_jaxrewrite("check", "main.py", cwd=tmp_path)
    assert "main.py:7:10: JR009 'Op' in the annotation of 'x' comes from 'from pk import Op'," in (
        done.stdout
    ), done.stdout + done.stderr


def test_jr009_quotes_a_renaming_import_as_written(tmp_path: Path) -> None:
    """Where the name cannot be read, the import is quoted as written, not with the local name."""
    imports = "from nowhere import Op2 as Op"
    write(tmp_path / "main.py", USE.format(imports=imports, op="Op", steps="int"))
    done = run_jaxrewrite("check", "main.py", cwd=tmp_path)
    assert (
        "main.py:7:10: JR009 'Op' in the annotation of 'x' comes from "
        "'from nowhere import Op2 as Op', which jaxrewrite does not read" in done.stdout
    ), done.stdout + done.stderr


@pytest.mark.parametrize(
    "imports, spelled",
    [
        ("from nowhere import envs", "envs.State"),
        ("import nowhere.envs as envs", "envs.State"),
        ("import nowhere", "nowhere.envs.State"),
        ("from nowhere import envs", "envs.sub.State"),
        ("from nowhere import envs", "'envs.State'"),
        ("from . import envs", "envs.State"),
    ],
)
def test_jr009_quotes_an_attribute_and_its_import_as_written(
    tmp_path: Path, imports: str, spelled: str
) -> None:
    """``envs.State`` of ``from brax import envs`` is quoted so, with that import: not as a
    ``from brax.envs import State`` the user never wrote."""
    write(tmp_path / "main.py", USE.format(imports=imports, op=spelled, steps="int"))
    (finding,) = check_text((tmp_path / "main.py").read_text(), str(tmp_path / "main.py"))
    assert finding.code == "JR009" and finding.message.startswith(
        f"{spelled.strip(chr(39))!r} in the annotation of 'x' comes from {imports!r}, which "
    ), finding.message


TWO_WAYS = "c = True\n" + "".join(
    f"if c:\n    m{i} = m{i - 1}\nelse:\n    m{i} = m{i - 1}\n" for i in range(1, 21)
)


@pytest.mark.parametrize(
    "imports, spelled",
    [
        ("from pk import Steps as S0\nS1 = S0", "S1"),
        ("import pk\nS1 = pk.Steps", "S1"),
        ("import pk as m0\nm1 = m0", "m1.Steps"),
        ("import pk as m0\nm1 = m0\nm2 = m1", "'m2.Steps'"),
        ("import pk as m0\n" + TWO_WAYS, "m20.Steps"),
    ],
    ids=["name", "attribute", "module", "module twice, quoted", "two ways at 20 links"],
)
def test_jr009_follows_names_assigned_from_an_import(
    tmp_path: Path, imports: str, spelled: str
) -> None:
    """A marker alias of another module under a name assigned from its import (``S1 = S0``,
    ``m = mymod``; on every path, however many links) does nothing here as the import itself does:
    JR009, not silence."""
    write(tmp_path / "pk.py", "from jaxrewrite import Static\n\nSteps = Static[int]\n")
    main = USE.format(imports=imports, op="int", steps=spelled)
    write(tmp_path / "main.py", main)
    (finding,) = check_text(main, str(tmp_path / "main.py"))
    assert finding.code == "JR009" and finding.message.startswith(
        f"{spelled.strip(chr(39))!r} in the annotation of 'n' is an alias of a marker in pk,"
    ), finding.message


@pytest.mark.parametrize(
    "imports, spelled",
    [
        ("import pk\nc = True\nif c:\n    m = pk\nelse:\n    m = jax", "m.Steps"),
        ("from pk import Steps\nS = make(Steps)", "S"),
        ("import pk\nm = load(pk)", "m.Steps"),
        ("from pk import Steps\nS = jax.jit(Steps)", "S"),
    ],
    ids=["two ways", "a call's result", "a module through a call", "a transform's result"],
)
def test_a_name_not_assigned_the_import_itself_is_not_followed(
    tmp_path: Path, imports: str, spelled: str
) -> None:
    """JR009 says "comes from <import>" only of a name bound to that import on every path: a
    call's result (``S = make(Steps)``) is something else, which nothing here can read."""
    write(tmp_path / "pk.py", "from jaxrewrite import Static\n\nSteps = Static[int]\n")
    main = USE.format(imports=imports, op="int", steps=spelled)
    write(tmp_path / "main.py", main)
    assert check_text(main, str(tmp_path / "main.py")) == []


# Issue 55, measured on ott-jax and haliax checked uninstalled: a project in the src layout whose
# tests import its package (``from ott.geometry import geometry``, ``geom: geometry.Geometry``)
# was JR009, "not read": the package lives in src/, on no search path until it is installed.
SRC_USE = """\
# jaxrewrite: enable
import jax
from proj.geometry import {name}
from proj import geometry


@jax.jit
def f(a: {name}, b: geometry.{name}):
    return a
"""


@pytest.mark.parametrize("run_from", ["project", "tests"])
def test_a_src_layout_package_imported_by_its_tests_is_read(tmp_path: Path, run_from: str) -> None:
    write(tmp_path / "src" / "proj" / "__init__.py", "")
    write(tmp_path / "src" / "proj" / "geometry.py", "class Geometry:\n    pass\n")
    write(tmp_path / "tests" / "geometry" / "test_geometry.py", SRC_USE.format(name="Geometry"))
    cwd = tmp_path if run_from == "project" else tmp_path / "tests"
    done = run_jaxrewrite("check", str(tmp_path / "tests"), cwd=cwd)
    assert (done.returncode, done.stdout.strip()) == (0, "All checks passed!"), (
        done.stdout + done.stderr
    )


def test_a_src_layout_marker_alias_is_still_jr009(tmp_path: Path) -> None:
    write(tmp_path / "src" / "proj" / "__init__.py", "")
    alias = "from jaxrewrite import Static\n\nSteps = Static[int]\n"
    write(tmp_path / "src" / "proj" / "geometry.py", alias)
    write(tmp_path / "tests" / "test_geometry.py", SRC_USE.format(name="Steps"))
    done = run_jaxrewrite("check", "tests", "--select", "JR009", cwd=tmp_path)
    lines = done.stdout.splitlines()[:-1]
    assert len(lines) == 2 and all(
        f"JR009 {name!r}" in line and "is an alias of a marker in proj.geometry" in line
        for line, name in zip(lines, ["Steps", "geometry.Steps"])
    ), done.stdout + done.stderr
