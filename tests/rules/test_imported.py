"""JR013: a transform applied here to a marked def of another module.

jaxrewrite rewrites one module at a time, so ``jax.jit(f)`` of ``from mymod import f`` gets no
keywords and traces ``f``'s Static parameters. ``check`` reads the other module and says so at
the use, with the keywords to write; the test runs both programs to show the finding is true
(the parameter is traced as written, static with the keywords it names).
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jaxrewrite.commands.check import examine
from jaxrewrite.config import Config

MYMOD = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static, NoDiff


def f(x, n: Static[int]):
    for _ in range(n):
        x = x + 1
    return x


def g(x, w: NoDiff[float]):
    return x * w


def plain(x, n):
    return x * n


fast = jax.jit(f)
"""


def _check(
    tmp_path: Path, main: str, files: dict[str, str] | None = None
) -> list[tuple[str, int, int, str]]:
    layout = {"mymod.py": MYMOD, "pkg/__init__.py": "", "pkg/mymod.py": MYMOD}
    for name, text in {**layout, **(files or {})}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    target = tmp_path / "main.py"
    target.write_text(textwrap.dedent(main))
    return [(d.code, d.line, d.col, d.message) for d in examine(str(target), False, Config())[0]]


@pytest.mark.parametrize("pragma", ["# jaxrewrite: enable\n", ""], ids=["opted in", "plain module"])
@pytest.mark.parametrize(
    "main, col",
    [
        ("from mymod import f\n\nh = jax.jit(f)\n", 13),
        ("from mymod import f as step\n\nh = jax.jit(step)\n", 13),
        ("import mymod\n\nh = jax.jit(mymod.f)\n", 13),
        ("import mymod as m\n\nh = jax.jit(m.f)\n", 13),
        (
            "from mymod import f\n\nh = jax.jit(jax.vmap(f))\n",
            (22, 22),
        ),  # each level, as in a rewrite
        (
            "from mymod import f\nfrom functools import partial\n\n"
            "h = partial(jax.jit, donate_argnums=0)(f)\n",
            40,
        ),
        ("from mymod import f\n\n\ndef build():\n    return jax.jit(f)\n", 20),
        ("import pkg.mymod\n\nh = jax.jit(pkg.mymod.f)\n", 13),
        ("import pkg\n\nh = jax.jit(pkg.mymod.f)\n", 13),
        ("from pkg import mymod\n\nh = jax.jit(mymod.f)\n", 13),
    ],
    ids=[
        "from import",
        "renamed",
        "module attribute",
        "module alias",
        "nested",
        "partial",
        "in a def",
        "dotted import",
        "package attribute",
        "module from a package",
    ],
)
def test_a_transform_of_an_imported_marked_def_is_reported(
    tmp_path: Path, pragma: str, main: str, col: int | tuple[int, ...]
) -> None:
    found = _check(tmp_path, pragma + "import jax\n" + main)
    cols = col if isinstance(col, tuple) else (col,)
    assert [(code, column) for code, _, column, _ in found] == [("JR013", c) for c in cols], found
    message = " ".join(m for *_, m in found)
    assert re.search(r"'f' \('n', marked in (pkg\.)?mymod\)", message), message
    assert "static_argnums=(1,), static_argnames=('n',)" in message, message


@pytest.mark.parametrize(
    "main",
    [
        # said already
        "from mymod import f\n\nh = jax.jit(f, static_argnums=(1,), static_argnames=('n',))\n",
        "from mymod import fast\n\nh = jax.vmap(fast)\n",  # jitted in its module: not a def there
        "from mymod import plain\n\nh = jax.jit(plain)\n",  # no markers
        "from mymod import g\n\nh = jax.jit(g)\n",  # NoDiff: jit reads none
        "from mymod import f\n\nf = print\nh = jax.jit(f)\n",  # rebound here: not (only) the import
        # cannot be read: most such names hold no marker
        "from nowhere import f\n\nh = jax.jit(f)\n",
        "from jax.numpy import sin\n\nh = jax.jit(sin)\n",  # a library: not read
        "from mymod import f\n\nh = print(f)\n",  # not a transform
        "from mymod import f\n\n\ndef build(f):\n    return jax.jit(f)\n",  # a parameter shadows it
        "from mymod import f\n\n\ndef build():\n    from jax.numpy import sin as f\n"
        "    return jax.jit(f)\n",
    ],
    ids=[
        "written",
        "transformed there",
        "unmarked",
        "nodiff under jit",
        "rebound",
        "unreadable",
        "library",
        "not a transform",
        "parameter",
        "a library's name in a def",
    ],
)
def test_quiet_where_nothing_is_lost(tmp_path: Path, main: str) -> None:
    assert _check(tmp_path, "import jax\n" + main) == []


def test_nodiff_under_grad(tmp_path: Path) -> None:
    """``jax.grad(g)`` differentiates ``x`` only: nothing to add. ``argnums=(0, 1)`` takes the
    NoDiff ``w``: what a def of this module would be refused for (JR121) is said here, in JR013."""
    assert _check(tmp_path, "import jax\nfrom mymod import g\n\nh = jax.grad(g)\n") == []
    found = _check(tmp_path, "import jax\nfrom mymod import g\n\nh = jax.grad(g, argnums=(0, 1))\n")
    assert [code for code, *_ in found] == ["JR013"], found
    assert "could not take them: 'w' is NoDiff but grad differentiates it" in found[0][3]


def test_a_relative_import_in_a_package(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/mymod.py": MYMOD}
    main = "import jax\nfrom .mymod import f\n\nh = jax.jit(f)\n"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "use.py").write_text(main)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    found = [
        (d.code, d.line) for d in examine(str(tmp_path / "pkg" / "use.py"), False, Config())[0]
    ]
    assert found == [("JR013", 4)]


def test_the_finding_is_true_and_its_keywords_fix_it(tmp_path: Path) -> None:
    """As written, ``n`` reaches ``f`` as a tracer (``range(n)`` fails); with the keywords the
    finding names, it is a Python int and a new value retraces, a repeated one does not."""
    (tmp_path / "mymod.py").write_text(MYMOD)
    main = "import jax\nfrom mymod import f\n\nh = jax.jit(f)\n"
    (tmp_path / "main.py").write_text(main)
    [finding] = examine(str(tmp_path / "main.py"), False, Config())[0]
    keywords = re.search(r"write (static_argnums=.*) here$", finding.message)
    assert keywords is not None
    run = "\nprint(float(h(1.0, 3)), float(h(2.0, 3)), float(h(1.0, 4)), h._cache_size())\n"
    (tmp_path / "as_written.py").write_text(main + run)
    (tmp_path / "as_told.py").write_text(
        main.replace("jax.jit(f)", f"jax.jit(f, {keywords.group(1)})") + run
    )

    def execute(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "jaxrewrite", name],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    written = execute("as_written.py")
    assert written.returncode != 0 and "TracerIntegerConversionError" in written.stderr, (
        written.stderr[-2000:]
    )
    told = execute("as_told.py")
    assert told.returncode == 0, told.stderr[-2000:]
    assert told.stdout.split() == ["4.0", "5.0", "5.0", "2"]  # n=3 twice: one trace; n=4: a second


@pytest.mark.parametrize(
    "text, may",
    [
        ("import jax\nfrom mymod import f\njax.jit(f)\n", True),
        ("import jax, mymod\njax.jit(mymod.f)\n", True),
        ("import jax; import mymod\njax.jit(mymod.f)\n", True),
        ("import jax\ntry: from mymod import f\nexcept ImportError: pass\njax.jit(f)\n", True),
        ("import jax\nfrom . import mod\njax.jit(mod.f)\n", True),
        ("import jax, \\\n    mymod\njax.jit(mymod.f)\n", True),
        ("import jax\nfrom jax import numpy\njax.jit(numpy.sin)\n", False),  # libraries only
        ("import os\nfrom mymod import f\nprint(f)\n", False),  # no transform named
    ],
)
def test_the_pre_filter_is_a_superset(text: str, may: bool) -> None:
    """``may_apply_imported`` (and its bytes twin, which ``check`` asks first) is False only
    where the pass finds nothing: every spelling of an import of a module that may hold markers."""
    from jaxrewrite.engine.findings.checks.imported_def import (
        may_apply_imported,
        may_apply_imported_bytes,
    )

    assert may_apply_imported(text) is may_apply_imported_bytes(text.encode()) is may


@pytest.mark.parametrize(
    "files, main, where",
    [
        (
            {"pkg/__init__.py": "from .impl import f\n", "pkg/impl.py": MYMOD},
            "from pkg import f",
            "pkg.impl",
        ),
        (
            {"pkg/__init__.py": "from pkg.impl import f\n", "pkg/impl.py": MYMOD},
            "from pkg import f",
            "pkg.impl",
        ),
        (
            {"pkg/__init__.py": "", "pkg/api.py": "from .impl import f\n", "pkg/impl.py": MYMOD},
            "from pkg.api import f",
            "pkg.impl",
        ),
        (
            {
                "pkg/__init__.py": "from .sub import f\n",
                "pkg/sub/__init__.py": "from ..impl import f\n",
                "pkg/impl.py": MYMOD,
            },
            "from pkg import f",
            "pkg.impl",
        ),
        ({"api.py": "from mymod import f as step\n"}, "from api import step as f", "mymod"),
        ({"api.py": "from mymod import f; from os import path\n"}, "from api import f", "mymod"),
        (
            {"pkg/__init__.py": "from .impl import *\n", "pkg/impl.py": MYMOD},
            "from pkg import f",
            "pkg.impl",
        ),
        (
            {
                "pkg/__init__.py": "from .impl import *\n",
                "pkg/impl.py": MYMOD + "__all__ = ['f']\n",
            },
            "from pkg import f",
            "pkg.impl",
        ),
    ],
    ids=[
        "package init",
        "absolute in init",
        "module file",
        "two hops up",
        "renamed twice",
        "two on a line",
        "star import",
        "star import of __all__",
    ],
)
def test_re_exports_are_followed_to_the_def(
    tmp_path: Path, files: dict[str, str], main: str, where: str
) -> None:
    """Libraries re-export their functions (``pkg/__init__.py``: ``from .impl import f``): the
    use is reported with the module that marks them."""
    found = _check(tmp_path, f"import jax\n{main}\n\nh = jax.jit(f)\n", files)
    assert [code for code, *_ in found] == ["JR013"], found
    assert f"marked in {where})" in found[0][3]


def test_a_loop_of_re_exports_ends_quietly(tmp_path: Path) -> None:
    files = {"a.py": "from b import f\n", "b.py": "from a import f\n"}
    assert _check(tmp_path, "import jax\nfrom a import f\n\nh = jax.jit(f)\n", files) == []


@pytest.mark.parametrize(
    "main, cols",
    [
        ("from mymod import f\n\nstep = f\nh = jax.jit(step)\n", [13]),
        ("import mymod\n\nstep = mymod.f\nh = jax.jit(step)\n", [13]),
        ("import mymod\n\nm = mymod\nh = jax.jit(m.f)\n", [13]),
        ("from mymod import f\n\na = f\nb = a\nh = jax.jit(b)\n", [13]),
        ("from mymod import f\n\n\ndef build():\n    step = f\n    return jax.jit(step)\n", [20]),
        (
            "from mymod import f\n\nfast = jax.jit(f)\nh = jax.vmap(fast)\n",
            [16, 14],
        ),  # each transform
        ("from mymod import f\n\nstep: object = f\nh = jax.jit(step)\n", [13]),
    ],
    ids=[
        "alias",
        "alias of an attribute",
        "module alias",
        "chain",
        "alias in a def",
        "transformed alias",
        "annotated",
    ],
)
def test_a_name_assigned_from_an_imported_marked_def_is_reported(
    tmp_path: Path, main: str, cols: list[int]
) -> None:
    """A name made from the import (``step = f``) stands for the def, as a name made from a def
    of the module does for the rewrite: a transform of it gets no keywords either."""
    found = _check(tmp_path, "import jax\n" + main)
    assert sorted((code, column) for code, _, column, _ in found) == sorted(
        ("JR013", c) for c in cols
    ), found
    for *_, message in found:
        assert "marked in mymod)" in message, message
        assert (
            "static_argnums=(1,), static_argnames=('n',)" in message
            or "in_axes=(0, None)" in message
        ), message


def test_each_import_a_name_may_be_is_reported(tmp_path: Path) -> None:
    """An import fallback binds the name twice; each module's def may be the one transformed, so
    each marked one is reported (one finding per module, at the use)."""
    main = (
        "import jax\n\ntry:\n    from mymod import f\nexcept ImportError:\n"
        "    from pkg.mymod import f\n\n"
        "h = jax.jit(f)\n"
    )
    found = _check(tmp_path, main)
    assert [(code, line) for code, line, *_ in found] == [("JR013", 8), ("JR013", 8)], found
    assert {re.search(r"marked in ([\w.]+)\)", m).group(1) for *_, m in found} == {
        "mymod",
        "pkg.mymod",
    }  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "main",
    [
        # rebound before the use
        "from mymod import f\n\nstep = f\nstep = print\nh = jax.jit(step)\n",
        # a parameter
        "from mymod import f\n\nstep = f\n\n\ndef build(step):\n    return jax.jit(step)\n",
        "from mymod import f\n\na = b\nb = a\nh = jax.jit(a)\n",  # a loop of names: no def in it
        # the def's result, not the def
        "from mymod import f\n\nstep = f(1.0, 2)\nh = jax.jit(step)\n",
    ],
    ids=["rebound", "parameter", "loop", "a call of it"],
)
def test_quiet_where_an_assigned_name_is_not_the_def(tmp_path: Path, main: str) -> None:
    assert _check(tmp_path, "import jax\n" + main) == []


@pytest.mark.parametrize(
    "files, main, where",
    [
        (
            {"pkg/__init__.py": "from . import impl\nstep = impl.f\n", "pkg/impl.py": MYMOD},
            "from pkg import step as f",
            "pkg.impl",
        ),
        (
            {"pkg/__init__.py": "from .impl import f as _f\nf = _f\n", "pkg/impl.py": MYMOD},
            "from pkg import f",
            "pkg.impl",
        ),
        ({"api.py": "import mymod\nstep = mymod.f\n"}, "from api import step as f", "mymod"),
        (
            {"api.py": "import pkg.mymod as m\nstep = m.f\n"},
            "from api import step as f",
            "pkg.mymod",
        ),
        (
            {"api.py": "from mymod import f\nstep = f\nagain = step\n"},
            "from api import again as f",
            "mymod",
        ),
    ],
    ids=[
        "module attribute in init",
        "renamed import",
        "module import",
        "dotted module alias",
        "chain",
    ],
)
def test_re_exports_by_assignment_are_followed(
    tmp_path: Path, files: dict[str, str], main: str, where: str
) -> None:
    """A package that re-exports by assignment (``step = impl.f``) leads to the def too."""
    found = _check(tmp_path, f"import jax\n{main}\n\nh = jax.jit(f)\n", files)
    assert [code for code, *_ in found] == ["JR013"], found
    assert f"marked in {where})" in found[0][3]


def test_a_transform_made_in_the_other_module_is_no_def(tmp_path: Path) -> None:
    """``fast = jax.jit(f)`` there is transformed there: importing it is what the finding
    advises."""
    files = {"api.py": "import jax\nfrom mymod import f\nfast = jax.jit(f)\nalias = fast\n"}
    assert (
        _check(tmp_path, "import jax\nfrom api import alias\n\nh = jax.vmap(alias)\n", files) == []
    )


def test_names_bound_two_ways_at_every_link_are_read_once_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``if c: a1 = a0`` / ``else: a1 = a0``, 20 links: 2**20 ways to the import, each link read
    once a depth (the reading counted, and stopped, past a bound: it must not take them all), and
    the one import they all reach worded once."""
    from jaxrewrite.engine.findings.checks import imported_def as imported
    from jaxrewrite.engine.read import othermodules

    links = "".join(
        f"if c:\n    a{i} = a{i - 1}\nelse:\n    a{i} = a{i - 1}\n" for i in range(1, 21)
    )
    main = "import jax\nfrom mymod import f\n\nc = True\na0 = f\n" + links + "h = jax.jit(a20)\n"
    real = othermodules.reaches
    calls = [0]

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls[0] += 1
        assert calls[0] <= 4 * 22 * 2, "a name bound two ways at every link read each way again"
        return real(*args, **kwargs)

    worded = [0]
    real_finding = imported._finding

    def finding(*args, **kwargs):  # type: ignore[no-untyped-def]
        worded[0] += 1
        return real_finding(*args, **kwargs)

    monkeypatch.setattr(othermodules, "reaches", counted)
    monkeypatch.setattr(imported, "_finding", finding)
    found = _check(tmp_path, main)
    assert worded[0] == 1, "each way to the one import was worded again (2**20 findings)"
    assert [(code, line) for code, line, *_ in found] == [("JR013", main.count("\n"))], found
