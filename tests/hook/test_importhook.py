"""The import hook: install/uninstall, the finder's delegation, and how it meets other import
machinery.

API tests run in process (they import nothing opted in); anything that loads a rewritten module
runs in a child interpreter (helpers_hook).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from helpers_hook import OPTED_IN, PLAIN_CALL, REWRITTEN_CALL, Project, report

import jaxrewrite
from jaxrewrite.hook.finder import RewritingFinder


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


@pytest.fixture
def meta_path() -> Iterator[list[Any]]:
    """The meta path as it was; every test leaves it that way again."""
    before = list(sys.meta_path)
    yield before
    jaxrewrite.uninstall()
    sys.meta_path[:] = before


def ours() -> list[Any]:
    return [f for f in sys.meta_path if isinstance(f, RewritingFinder)]


class Recorder:
    """A finder that finds nothing and remembers being asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        self.asked.append(fullname)


# --- install / uninstall --------------------------------------------------------------------


def test_install_puts_one_finder_at_the_front(meta_path: list[Any]) -> None:
    jaxrewrite.install()
    jaxrewrite.install()
    assert len(ours()) == 1 and sys.meta_path[0] is ours()[0]
    assert sys.meta_path[1:] == meta_path


def test_uninstall_restores_meta_path_exactly_around_later_finders(meta_path: list[Any]) -> None:
    the_list = sys.meta_path
    jaxrewrite.install()
    front, back = Recorder(), Recorder()
    sys.meta_path.insert(0, front)
    sys.meta_path.append(back)
    jaxrewrite.uninstall()
    assert sys.meta_path is the_list and sys.meta_path == [front, *meta_path, back]
    jaxrewrite.uninstall()  # idempotent
    assert sys.meta_path == [front, *meta_path, back]


def test_install_again_moves_the_one_finder_to_the_front(meta_path: list[Any]) -> None:
    """A tool whose finder was put in front since (jaxtyping's, typeguard's): installing again
    puts jaxrewrite's first, so it sees that tool's loader and composes with it."""
    jaxrewrite.install(["a"])
    other = Recorder()
    sys.meta_path.insert(0, other)
    jaxrewrite.install(["b"])
    assert sys.meta_path[:2] == [ours()[0], other] and len(ours()) == 1


def test_installs_add_up_and_each_handle_withdraws_its_own(meta_path: list[Any]) -> None:
    a = jaxrewrite.install(["a"])
    b = jaxrewrite.install("b")  # a lone name, not its letters
    assert ours()[0].packages == {"a", "b"}
    with jaxrewrite.install() as everything:  # names no package: the user's files, as always
        assert ours()[0].packages == {"a", "b"}
    with jaxrewrite.install(["c"]):
        assert ours()[0].packages == {"a", "b", "c"}
    assert ours()[0].packages == {"a", "b"}
    everything.uninstall()  # already withdrawn: no effect
    a.uninstall()
    assert ours()[0].packages == {"b"}
    b.uninstall()
    assert ours() == [] and sys.meta_path == meta_path


def test_uninstall_withdraws_every_install(meta_path: list[Any]) -> None:
    handle = jaxrewrite.install(["a"])
    jaxrewrite.install(["b"])
    jaxrewrite.uninstall()
    assert ours() == [] and sys.meta_path == meta_path
    handle.uninstall()
    assert sys.meta_path == meta_path


def test_install_takes_top_level_names_only(meta_path: list[Any]) -> None:
    with pytest.raises(ValueError, match="top-level"):
        jaxrewrite.install(["pkg.sub"])
    assert sys.meta_path == meta_path


# --- the finder -----------------------------------------------------------------------------


def _import_fresh(name: str) -> ModuleType:
    sys.modules.pop(name, None)
    try:
        return importlib.import_module(name)
    finally:
        sys.modules.pop(name, None)


def test_the_spec_a_later_finder_found_is_returned_not_searched_again(
    meta_path: list[Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "hook_probe_plain.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    jaxrewrite.install()
    seen: list[str] = []

    class Counting:
        def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
            seen.append(fullname)
            return importlib.machinery.PathFinder.find_spec(fullname, path, target)

    sys.meta_path.insert(1, Counting())
    module = _import_fresh("hook_probe_plain")
    assert module.X == 1 and seen == ["hook_probe_plain"]
    assert type(module.__spec__.loader) is importlib.machinery.SourceFileLoader


def test_a_finder_that_looks_the_name_up_again_does_not_recurse(
    meta_path: list[Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "hook_probe_reentrant.py").write_text("X = 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    jaxrewrite.install()
    depth: list[str] = []

    class Wrapping:
        """Like a lazy-import shim: finds the 'real' spec through importlib, guarding itself."""

        def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
            if fullname != "hook_probe_reentrant" or depth:
                return None
            depth.append(fullname)
            try:
                return importlib.util.find_spec(fullname)
            finally:
                depth.pop()

    sys.meta_path.insert(1, Wrapping())
    assert _import_fresh("hook_probe_reentrant").X == 2


def test_finder_not_on_meta_path_finds_nothing() -> None:
    assert RewritingFinder().find_spec("json") is None


# --- loading, in child interpreters ---------------------------------------------------------


def test_module_without_pragma_gets_the_normal_loader_and_bytecode(project: Project) -> None:
    path = project.write(
        "plain.py",
        """\
        import jax

        # jaxrewrite: enable   (too late: below the header, so this file does not opt in)
        VALUE = 3
        """,
    )
    result = project.child("plain")
    assert (
        result["loader"] == "SourceFileLoader" and result["compiled"] == [] and result["value"] == 3
    )
    assert result["cached"] == importlib.util.cache_from_source(str(path))
    assert Path(result["cached"]).exists() and project.rewritten_pycs("plain.py") == []


def test_opted_in_module_keeps_its_source_and_line_numbers(project: Project) -> None:
    path = project.write(
        "mod.py", OPTED_IN.format(value=1) + "\n\ndef boom():\n    raise ValueError('here')\n"
    )
    code = """\
        import inspect, json, traceback, jaxrewrite
        jaxrewrite.install()
        import mod
        try:
            mod.boom()
        except ValueError as exc:
            frame = traceback.extract_tb(exc.__traceback__)[-1]
        print(json.dumps({
            "source": inspect.getsource(mod),
            "loader_source": mod.__loader__.get_source("mod"),
            "frame": [frame.filename, frame.lineno, frame.line],
            "jit_line": mod.f.__code__.co_firstlineno,
        }))
    """
    result = report(project.run(textwrap.dedent(code)))
    text = path.read_text()
    assert result["source"] == result["loader_source"] == text
    lines = text.splitlines()
    assert result["frame"] == [
        str(path),
        lines.index("    raise ValueError('here')") + 1,
        "raise ValueError('here')",
    ]
    assert result["jit_line"] == lines.index("@jax.jit") + 1


BAD = """\
# jaxrewrite: enable
import functools
import jax
from jaxrewrite import Static

@functools.partial(jax.jit, donate_argnums=(1,))
def f(x, n: Static[int]):
    return x
"""


def test_rewrite_error_surfaces_at_import_with_its_location(project: Project) -> None:
    path = project.write("bad.py", BAD)
    code = """\
        import json, jaxrewrite
        jaxrewrite.install()
        for attempt in range(2):  # a failure is not cached
            try:
                import bad
            except SyntaxError as exc:
                print(json.dumps([type(exc).__name__, exc.filename, exc.lineno, exc.offset, exc.msg]))
    """  # noqa: E501
    result = project.run(textwrap.dedent(code))
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 2 and lines[0] == lines[1]
    name, filename, lineno, offset, msg = lines[0]
    assert (name, filename, lineno, offset) == ("RewriteError", str(path), 7, 10)
    assert "donated" in msg
    assert project.rewritten_pycs("bad.py") == []

    # Uncaught, Python shows it like any SyntaxError in the imported file.
    uncaught = project.run("import jaxrewrite; jaxrewrite.install(); import bad")
    assert uncaught.returncode == 1
    assert (
        f'File "{path}", line 7' in uncaught.stderr
        and "jaxrewrite.errors.RewriteError" in uncaught.stderr
    )


def test_packages_filter_rewrites_the_package_named_and_the_users_files(project: Project) -> None:
    """Naming packages adds them to the scope; the user's own files stay in it."""
    project.write("foo/__init__.py", "")
    project.write("foo/mod.py", OPTED_IN.format(value=1))
    project.write("mod.py", OPTED_IN.format(value=1))
    inside = project.child("foo.mod", packages=["foo"])
    assert inside["loader"] == "RewritingLoader" and inside["jit"] == [REWRITTEN_CALL]
    outside = project.child("mod", packages=["foo"])
    assert outside["loader"] == "RewritingLoader" and outside["jit"] == [REWRITTEN_CALL]


def test_editable_install_finder_is_asked_and_its_modules_rewritten(project: Project) -> None:
    outside = project.root / "elsewhere"  # not on sys.path: only the editable finder knows it
    (outside / "edpkg").mkdir(parents=True)
    (outside / "edpkg" / "__init__.py").write_text(OPTED_IN.format(value=5))
    (outside / "edpkg" / "sub.py").write_text(OPTED_IN.format(value=6).replace("def f(", "def g("))
    (outside / "edpkg" / "plain.py").write_text("VALUE = 7\n")
    code = """\
        import importlib.util, json, sys
        from pathlib import Path
        import jaxrewrite

        MAPPING = {{"edpkg": {outside!r}}}

        class _EditableFinder:  # the shape of setuptools' __editable___*_finder
            @classmethod
            def find_spec(cls, fullname, path=None, target=None):
                if fullname in MAPPING:
                    init = Path(MAPPING[fullname]) / "__init__.py"
                    return importlib.util.spec_from_file_location(fullname, init)
                return None

        {first}
        {second}
        import jax, edpkg, edpkg.sub, edpkg.plain
        print(json.dumps([jax.CALLS, [type(m.__loader__).__name__ for m in (edpkg, edpkg.sub, edpkg.plain)]]))
    """  # noqa: E501
    append = "sys.meta_path.append(_EditableFinder)"
    for first, second in [(append, "jaxrewrite.install()"), ("jaxrewrite.install()", append)]:
        src = textwrap.dedent(
            code.format(outside=str(outside / "edpkg"), first=first, second=second)
        )
        calls, loaders = report(project.run(src))
        assert calls == [REWRITTEN_CALL, ["g", REWRITTEN_CALL[1]]]
        assert loaders == ["RewritingLoader", "RewritingLoader", "SourceFileLoader"]


def test_coexists_with_pytest_assertion_rewriting(project: Project) -> None:
    project.write("mod.py", OPTED_IN.format(value=1))
    tests = project.root / "suite"
    tests.mkdir()
    (tests / "conftest.py").write_text("import jaxrewrite\n\njaxrewrite.install()\n")
    (tests / "test_inner.py").write_text(
        textwrap.dedent(
            """\
            import jax
            import mod


            def test_module_was_rewritten():
                assert type(mod.__loader__).__name__ == "RewritingLoader"
                assert jax.CALLS[0][1]["static_argnums"] == (1,)


            def test_pytest_still_rewrites_asserts():
                seen = [1]
                assert seen == [2]
            """
        )
    )
    env = project.env(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    result = project.run(
        "import sys, pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'suite']))",
        env=env,
    )
    assert "1 failed, 1 passed" in result.stdout, result.stdout + result.stderr
    assert "assert [1] == [2]" in result.stdout  # pytest's own introspection survived our finder


def test_reload_goes_through_the_hook_again(project: Project) -> None:
    path = project.write("mod.py", OPTED_IN.format(value=1))
    code = f"""\
        import importlib, json, pathlib, jax, jaxrewrite
        jaxrewrite.install()
        import mod
        pathlib.Path({str(path)!r}).write_text(pathlib.Path({str(path)!r}).read_text().replace("VALUE = 1", "VALUE = 22"))
        importlib.reload(mod)
        print(json.dumps([mod.VALUE, jax.CALLS, type(mod.__loader__).__name__]))
    """  # noqa: E501
    value, calls, loader = report(project.run(textwrap.dedent(code)))
    assert value == 22 and calls == [REWRITTEN_CALL, REWRITTEN_CALL] and loader == "RewritingLoader"


# --- a save between the finder's look and the loader's read (issue 20 item 11) ---------------

#: The child: the hook finds ``mod``, then the file is saved anew (``NEW``), then it is loaded:
#: the very steps importlib takes, with the save between them, deterministically.
RACE = """\
import importlib.util, json, os, sys, warnings, jax, jaxrewrite
jaxrewrite.install()
spec = sys.meta_path[0].find_spec("mod", None)
with open(spec.origin, "w") as file:
    file.write({new!r})
module = importlib.util.module_from_spec(spec)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    spec.loader.exec_module(module)
print(json.dumps({{"jit": jax.CALLS, "value": module.VALUE, "loader": type(spec.loader).__name__,
                  "warned": [type(w.message).__name__ for w in caught]}}))
"""

NOT_OPTED_IN = OPTED_IN.replace("# jaxrewrite: enable\n", "# (no pragma yet)\n")


def test_a_pragma_saved_between_find_and_load_runs_as_written_and_says_so(project: Project) -> None:
    """The finder found no pragma, so the file kept Python's own loader (the hook assigns nothing
    to it, issue 51 item 5): a pragma saved in the microseconds before the load runs as written,
    NotRewrittenWarning says so, and the next import is rewritten; nothing of the hook's cached."""
    project.write("mod.py", NOT_OPTED_IN.format(value=1))
    result = report(project.run(RACE.format(new=OPTED_IN.format(value=2))))
    assert (
        result["jit"] == [PLAIN_CALL]
        and result["value"] == 2
        and result["warned"] == ["NotRewrittenWarning"]
    )
    assert result["loader"] == "SourceFileLoader" and project.rewritten_pycs() == []
    again = project.child("mod")
    assert again["jit"] == [REWRITTEN_CALL] and again["compiled"]


def test_a_pragma_removed_between_find_and_load_runs_plain_and_is_not_cached(
    project: Project,
) -> None:
    """The finder found the pragma; the bytes compiled have none: they run as written, unmarked
    (so the warning says what was lost), and nothing is cached under the rewriter's tag."""
    project.write("mod.py", OPTED_IN.format(value=1))
    result = report(project.run(RACE.format(new=NOT_OPTED_IN.format(value=2))))
    assert (
        result["jit"] == [PLAIN_CALL]
        and result["value"] == 2
        and result["loader"] == "RewritingLoader"
    )
    assert result["warned"] == ["NotRewrittenWarning"]
    assert project.rewritten_pycs() == []


def test_an_edit_between_find_and_load_is_what_runs_and_what_is_cached(project: Project) -> None:
    path = project.write("mod.py", OPTED_IN.format(value=1))
    result = report(project.run(RACE.format(new=OPTED_IN.format(value=22))))
    assert result["jit"] == [REWRITTEN_CALL] and result["value"] == 22 and result["warned"] == []
    (pyc,) = project.rewritten_pycs()
    with open(
        pyc, "rb"
    ) as file:  # keyed by the stat taken before the read, as CPython keys its own
        assert file.read()[8:16] == int(path.stat().st_mtime).to_bytes(
            4, "little"
        ) + path.stat().st_size.to_bytes(4, "little")
    assert project.child("mod")["compiled"] == []
