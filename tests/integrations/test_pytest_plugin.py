"""The pytest plugin, through real pytest runs (pytest's own ``pytester``, in subprocesses).

Each run is its own interpreter, as a user's ``python -m pytest`` is: the plugin comes from the
installed entry point, bytecode caches are written (this suite's environment turns them off), and
what is asserted is the run's outcome and the text pytest prints, not only its exit code. The runs
are forks of one interpreter that has imported jax and nothing else (tests/prewarmed.py), with
pytester's command line, cwd and environment; ``JAXREWRITE_TEST_FRESH=1`` starts each fresh.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import sys
import time
from pathlib import Path

import pytest
import support
from _pytest.pathlib import make_numbered_dir

from jaxrewrite.hook import cachetag
from jaxrewrite.integrations.pytest_plugin import pipeline_name

pytest_plugins = ["pytester"]

#: An opted-in test module: Static must work, and so must pytest's assertion introspection.
OPTED_IN = """\
# jaxrewrite: enable
import jax
import jax.numpy as jnp
from jaxrewrite import Static

SIZE = 3


@jax.jit
def ones(n: Static[int]):
    return jnp.ones(n)


def test_static():
    assert ones(SIZE).shape == (3,)


def test_introspection():
    assert [1, 2] == [1, 3]
"""
PLAIN = """\
SIZE = 3


def test_plain():
    assert SIZE == 3
"""
#: What a traced ``n`` makes jnp.ones say, on every supported JAX.
TRACED = "*Shapes must be 1D sequences of concrete values*"


@pytest.fixture(autouse=True)
def bytecode(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs write bytecode, as they do on a user's machine: the caches are under test. ``CI`` and
    ``BUILD_NUMBER`` make pytest print whole explanations in its summary too: the output read
    here must not depend on where the suite runs."""
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("BUILD_NUMBER", raising=False)


def run_python(pytester: pytest.Pytester, *argv: str) -> pytest.RunResult:
    """``pytester.run(sys.executable, *argv)``: its cwd and environment (the cwd first on
    ``PYTHONPATH``), stdin at end of file, the same result; in a fork of a prewarmed server."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), env.get("PYTHONPATH", "")]))
    print("running:", sys.executable, *argv)
    print("     in:", Path.cwd())
    start = time.perf_counter()
    done = support.server().run(list(argv), Path.cwd(), 300, env)
    out, err = done.stdout.splitlines(), done.stderr.splitlines()
    print("\n".join(out))
    print("\n".join(err), file=sys.stderr)
    ret: int | pytest.ExitCode = done.returncode
    with contextlib.suppress(ValueError):
        ret = pytest.ExitCode(ret)
    return pytest.RunResult(ret, out, err, time.perf_counter() - start)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """``pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)``, through
    ``run_python``."""
    assert not pytester.plugins
    basetemp = make_numbered_dir(root=pytester.path, prefix="runpytest-", mode=0o700)
    return run_python(
        pytester, "-mpytest", f"--basetemp={basetemp}", "-p", "no:cacheprovider", *args
    )


def pycs(folder: Path, stem: str) -> dict[str, list[str]]:
    """The cached bytecode of ``stem``.py, by who wrote it: pytest, jaxrewrite, plain Python."""
    found: dict[str, list[str]] = {"pytest": [], "jaxrewrite": [], "python": []}
    cached = folder / "__pycache__"
    for path in sorted(cached.glob(f"{stem}.*.pyc")) if cached.is_dir() else []:
        kind = (
            "pytest"
            if "-pytest-" in path.name
            else "jaxrewrite"
            if ".opt-jaxrewrite" in path.name
            else "python"
        )
        found[kind].append(path.name)
    return found


# -- on by default, off with -p no:jaxrewrite --------------------------------------------------


def test_the_plugin_is_an_installed_entry_point() -> None:
    (entry,) = [
        e for e in importlib.metadata.entry_points(group="pytest11") if e.name == "jaxrewrite"
    ]
    assert entry.value == "jaxrewrite.integrations.pytest_plugin"


def test_an_opted_in_test_module_is_rewritten_and_keeps_assertion_introspection(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_opted=OPTED_IN)
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*def test_introspection():",
            ">       assert [1, 2] == [1, 3]",
            "E       assert [1, 2] == [1, 3]",
            "E*At index 1 diff: 2 != 3",
            "test_opted.py:19: AssertionError",
        ]
    )
    result.stdout.no_fnmatch_line("*NotRewrittenWarning*")


def test_a_marker_that_does_nothing_is_in_the_warnings_summary_cold_and_warm(
    pytester: pytest.Pytester,
) -> None:
    """Issue 42.10: a Static under a decorator jaxrewrite does not know runs traced; the import
    says so (JR004), and says it again from the cache (the second run reads the pyc)."""
    pytester.makepyfile(
        test_opted=OPTED_IN
        + (
            "\n\ndef my_jit(f):\n    return jax.jit(f)\n\n\n@my_jit\n"
            "def unknown(x, n: Static[int]):\n    return x\n"
        )
    )
    for _ in range(2):
        result = run(pytester)
        result.assert_outcomes(passed=1, failed=1)
        result.stdout.fnmatch_lines(
            [
                "*test_opted.py:26: RewriteWarning: JR004 the marker on 'n' of 'unknown' "
                "does nothing under 'my_jit'*"
            ]
        )
    assert pycs(pytester.path, "test_opted")["jaxrewrite"]  # the second run read it


def test_off_with_p_no_jaxrewrite(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_opted=OPTED_IN)
    result = run(pytester, "-p", "no:jaxrewrite")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([TRACED, "E*At index 1 diff: 2 != 3", "*NotRewrittenWarning*"])


def test_loaded_by_its_entry_point_name_when_autoload_is_off(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_opted=OPTED_IN)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    run(pytester).assert_outcomes(failed=2)
    run(pytester, "-p", "jaxrewrite").assert_outcomes(passed=1, failed=1)


def test_an_opted_in_conftest_is_rewritten(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """\
        # jaxrewrite: enable
        import jax
        import jax.numpy as jnp
        import pytest
        from jaxrewrite import Static


        @jax.jit
        def zeros(n: Static[int]):
            return jnp.zeros(n)


        @pytest.fixture
        def four():
            return zeros(4)
        """
    )
    pytester.makepyfile(
        test_uses_fixture="def test_fixture(four):\n    assert four.shape == (4,)\n"
    )
    run(pytester).assert_outcomes(passed=1)


def test_a_rewrite_error_is_a_collection_error_at_the_users_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_bad="""\
        # jaxrewrite: enable
        import jax
        from jaxrewrite import Static


        @jax.jit
        def f(x, *sizes: Static[int]):
            return x
        """
    )
    result = run(pytester)
    result.assert_outcomes(errors=1)
    result.stdout.re_match_lines(
        [
            r".*ERROR collecting test_bad\.py.*",
            r'E\s+File ".*test_bad\.py", line 7',
            r"E\s+def f\(x, \*sizes: Static\[int\]\):",
            r"E\s+\^+",
            r"E\s+jaxrewrite\.errors\.RewriteError: JR101 Static cannot mark \*args "
            r"parameter 'sizes'.*",
        ]
    )
    # The hook's own frames are hidden, as pytest hides its own (__tracebackhide__).
    result.stdout.no_fnmatch_line("*jaxrewrite/hook/*")


def test_the_hook_for_test_modules_is_gone_once_collection_is_over(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_meta_path="""\
        import sys
        from jaxrewrite.hook.finder import RewritingFinder, active


        def test_meta_path_is_pytests_own():
            assert active() is None
            assert not [f for f in sys.meta_path if isinstance(f, RewritingFinder)]
        """
    )
    run(pytester).assert_outcomes(passed=1)


def test_import_mode_importlib(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_opted=OPTED_IN)
    result = run(pytester, "--import-mode=importlib")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["E*At index 1 diff: 2 != 3"])


def test_under_the_runner_too(pytester: pytest.Pytester) -> None:
    """``python -m jaxrewrite -m pytest``: the runner's hook is installed before pytest puts its own
    first; the plugin moves jaxrewrite's in front again, so test modules still get both rewrites."""
    pytester.makepyfile(test_opted=OPTED_IN)
    result = run_python(pytester, "-m", "jaxrewrite", "-m", "pytest", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["E*At index 1 diff: 2 != 3"])


# -- the code under test: --jaxrewrite-packages and the ini option ----------------------------


PACKAGE = """\
# jaxrewrite: enable
import jax
import jax.numpy as jnp
from jaxrewrite import Static


@jax.jit
def zeros(n: Static[int]):
    return jnp.zeros(n)
"""
#: Not opted in itself; imports the package under test inside the test, after collection.
USES_PACKAGE = """\
from jaxrewrite.hook.finder import active


def test_package():
    import mypkg

    assert mypkg.zeros(5).shape == (5,)
    assert active().packages == frozenset({"mypkg", "otherpkg"})
"""


@pytest.fixture
def package(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.mkpydir("mypkg").joinpath("__init__.py").write_text(PACKAGE)
    pytester.mkpydir("otherpkg")  # named too: a package that does not exist is an error
    pytester.makepyfile(test_package=USES_PACKAGE)
    return pytester


def test_packages_option(package: pytest.Pytester) -> None:
    run(package, "--jaxrewrite-packages=mypkg,otherpkg").assert_outcomes(passed=1)
    run(
        package, "--jaxrewrite-packages", "mypkg", "--jaxrewrite-packages", "otherpkg"
    ).assert_outcomes(passed=1)
    without = run(package, "-o", "jaxrewrite_not_rewritten=warn")
    without.assert_outcomes(failed=1)
    without.stdout.fnmatch_lines(
        [TRACED, "*NotRewrittenWarning: module 'mypkg' was not rewritten*"]
    )
    # The fix named is the plugin's option, not jaxrewrite.install()'s packages=.
    without.stdout.fnmatch_lines(
        ["*under pytest*--jaxrewrite-packages=mypkg*jaxrewrite_packages ini option*"]
    )
    assert "install the hook first" not in without.stdout.str()


def test_a_module_that_runs_unrewritten_is_an_error_by_default(package: pytest.Pytester) -> None:
    """Not a warning at the end of a green run: the import fails, with what happened and the fix;
    ``jaxrewrite_not_rewritten = warn`` (or ``-W default::...``) makes it a warning again."""
    result = run(package)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["E *NotRewrittenWarning: module 'mypkg' was not rewritten*--jaxrewrite-packages=mypkg*"]
    )
    result.stdout.no_fnmatch_line(TRACED)  # it never ran unrewritten
    package.makeini("[pytest]\njaxrewrite_not_rewritten = warn\n")
    run(package).stdout.fnmatch_lines(
        [TRACED, "*NotRewrittenWarning: module 'mypkg' was not rewritten*"]
    )
    package.makeini("[pytest]\n")
    run(package, "-W", "default::jaxrewrite.NotRewrittenWarning").stdout.fnmatch_lines([TRACED])
    package.makeini("[pytest]\njaxrewrite_not_rewritten = sometimes\n")
    bad = run(package)
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(
        ["*jaxrewrite_not_rewritten takes 'error' or 'warn', not 'sometimes'*"]
    )


def test_a_package_that_does_not_exist_is_named(package: pytest.Pytester) -> None:
    for args in (
        ["--jaxrewrite-packages=mypkg,nosuchpkg"],
        ["-o", "jaxrewrite_packages=nosuchpkg"],
    ):
        result = run(package, *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, args
        result.stderr.fnmatch_lines(["*'nosuchpkg', which cannot be imported*"])
    package.makefile(".toml", pyproject='[tool.jaxrewrite]\npackages = ["nosuchpkg"]\n')
    run(package).stderr.fnmatch_lines(["*'nosuchpkg', which cannot be imported*"])


JAXTYPED = (
    PACKAGE
    + """

def checked(x: int) -> int:
    return x
"""
)
USES_JAXTYPED = """import pytest


def test_package():
    import mypkg

    assert type(mypkg.__spec__.loader).__name__ == "_JaxtypingLoader"
    assert mypkg.zeros(5).shape == (5,)
    with pytest.raises(Exception, match="checked"):
        mypkg.checked("not an int")
"""


@pytest.mark.parametrize("runner", [False, True])
def test_jaxtyping_pytest_option_as_equinox_projects_set_it(
    pytester: pytest.Pytester, runner: bool
) -> None:
    """lineax's addopts: ``--jaxtyping-packages=PKG,beartype.beartype``; the package is both
    rewritten and type-checked, under the plugin and under ``python -m jaxrewrite -m pytest``."""
    pytest.importorskip("jaxtyping")
    pytester.mkpydir("mypkg").joinpath("__init__.py").write_text(JAXTYPED)
    pytester.makepyfile(test_package=USES_JAXTYPED)
    pytester.makeini("[pytest]\naddopts = --jaxtyping-packages=mypkg,beartype.beartype\n")
    if runner:
        basetemp = make_numbered_dir(root=pytester.path, prefix="runpytest-", mode=0o700)
        result = run_python(
            pytester,
            "-m",
            "jaxrewrite",
            "-m",
            "pytest",
            f"--basetemp={basetemp}",
            "-p",
            "no:cacheprovider",
        )
    else:
        result = run(pytester, "--jaxrewrite-packages=mypkg")
    result.assert_outcomes(passed=1)


def test_packages_from_pyproject(package: pytest.Pytester) -> None:
    """``packages`` in [tool.jaxrewrite], as ruff users keep their settings; an unknown key is an
    error."""
    package.makefile(".toml", pyproject='[tool.jaxrewrite]\npackages = ["mypkg", "otherpkg"]\n')
    run(package).assert_outcomes(passed=1)
    package.makefile(".toml", pyproject='[tool.jaxrewrite]\npackage = ["mypkg"]\n')
    result = run(package)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pyproject.toml: [[]tool.jaxrewrite[]]: unknown key 'package'*"])


def test_packages_ini_option(package: pytest.Pytester) -> None:
    package.makeini("[pytest]\njaxrewrite_packages = mypkg otherpkg\n")
    run(package).assert_outcomes(passed=1)


def test_packages_must_be_top_level_names(package: pytest.Pytester) -> None:
    result = run(package, "--jaxrewrite-packages=mypkg.sub")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--jaxrewrite-packages / jaxrewrite_packages take top-level package names*mypkg.sub*"]
    )


def test_xdist_workers(package: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    package.makepyfile(
        test_opted=OPTED_IN, test_opted_too=OPTED_IN.replace("SIZE = 3", "SIZE = 3  # too")
    )
    result = run(package, "-n", "2", "--jaxrewrite-packages=mypkg,otherpkg")
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines(["*2 workers*"])
    assert result.stdout.str().count("At index 1 diff: 2 != 3") == 2


# -- caches ----------------------------------------------------------------------------------


def test_pytests_own_pyc_is_never_used_for_an_opted_in_module(pytester: pytest.Pytester) -> None:
    """Both ways round: after a run without the plugin, a run with it gets rewritten code (pytest's
    pyc, up to date by mtime and size, is not served); after a run with it, a run without it gets
    none (pytest's pyc never held rewritten code)."""
    pytester.makepyfile(test_opted=OPTED_IN)
    run(pytester, "-p", "no:jaxrewrite").assert_outcomes(failed=2)
    assert (
        pycs(pytester.path, "test_opted")["pytest"]
        and not pycs(pytester.path, "test_opted")["jaxrewrite"]
    )
    run(pytester).assert_outcomes(passed=1, failed=1)
    run(pytester, "-p", "no:jaxrewrite").assert_outcomes(failed=2)
    run(pytester).assert_outcomes(passed=1, failed=1)
    found = pycs(pytester.path, "test_opted")
    assert len(found["jaxrewrite"]) == 1 and len(found["pytest"]) == 1


def test_the_plugin_writes_no_pytest_pyc_for_an_opted_in_module(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_opted=OPTED_IN)
    run(pytester).assert_outcomes(passed=1, failed=1)
    found = pycs(pytester.path, "test_opted")
    taken = cachetag.cache_tag(0, pipeline_name(pytest.__version__, False))
    assert found == {
        "pytest": [],
        "jaxrewrite": [f"test_opted.{sys.implementation.cache_tag}.opt-{taken}.pyc"],
        "python": [],
    }


def test_an_edit_is_seen_as_python_sees_it(pytester: pytest.Pytester) -> None:
    """jaxrewrite's pyc of a test module is checked by mtime and size, as CPython's (issue 51
    item 4): a same-size edit saved later runs its new text, opted in or not."""
    path = pytester.makepyfile(test_opted=OPTED_IN, test_plain=PLAIN)
    opted, plain = path.parent / "test_opted.py", path.parent / "test_plain.py"
    run(pytester).assert_outcomes(passed=2, failed=1)

    def edit(file: Path) -> None:
        before = file.stat()
        file.write_text(file.read_text().replace("SIZE = 3", "SIZE = 4"))
        os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns + 2_000_000_000))
        assert file.stat().st_size == before.st_size

    edit(opted)
    edit(plain)
    result = run(pytester)
    # Both modules run their new text: every test that reads SIZE now fails.
    result.stdout.fnmatch_lines(["test_opted.py FF*", "E*assert (4,) == (3,)*"])
    result.assert_outcomes(passed=0, failed=3)


def test_plain_modules_keep_pytests_loader_and_cache_byte_for_byte(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_plain=PLAIN + "\n\ndef test_fails():\n    assert {'a': 1} == {'a': 2}\n"
    )
    without = run(pytester, "-p", "no:jaxrewrite")
    (name,) = pycs(pytester.path, "test_plain")["pytest"]
    pyc = pytester.path / "__pycache__" / name
    written = pyc.read_bytes()
    pyc.unlink()
    with_plugin = run(pytester)
    assert pycs(pytester.path, "test_plain") == {"pytest": [name], "jaxrewrite": [], "python": []}
    assert pyc.read_bytes() == written
    for result in (without, with_plugin):
        result.assert_outcomes(passed=1, failed=1)
        result.stdout.fnmatch_lines(["E*Differing items:", "E*{'a': 1} != {'a': 2}"])


FORGE = """\
# A plugin loaded before jaxrewrite's (-p): forge a cached pyc for test_opted.py under the tag
# this session will use, holding code that fails, unless asked to change a version first.
import importlib.util, os, pathlib, sys

import pytest

from jaxrewrite.hook import cachetag, pycfile
from jaxrewrite.integrations.pytest_plugin import pipeline_name

if os.environ.get("FORGE_PYTEST_VERSION"):
    pytest.__version__ = os.environ["FORGE_PYTEST_VERSION"]
if os.environ.get("FORGE_JAXREWRITE_VERSION"):
    import jaxrewrite.version

    jaxrewrite.version.__version__ = os.environ["FORGE_JAXREWRITE_VERSION"]
    cachetag.rewriter_hash.cache_clear()
if os.environ.get("FORGE_WRITE"):
    source = pathlib.Path("test_opted.py")
    pyc = cachetag.cache_path(str(source.resolve()), sys.flags.optimize, pipeline_name(pytest.__version__, False))
    code = compile("def test_forged():\\n    assert False, 'forged'\\n", str(source.resolve()), "exec")
    pycfile.store(pyc, code, pycfile.stat_key(source.stat()), str(source.resolve()))
"""  # noqa: E501


def test_code_cached_for_another_pytest_or_jaxrewrite_version_is_never_served(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_opted=OPTED_IN, forge=FORGE)
    monkeypatch.setenv("FORGE_WRITE", "1")
    # The control: a pyc forged for this very session's key is served (so the key is all that
    # decides).
    run(pytester, "-p", "forge").stdout.fnmatch_lines(["*AssertionError: forged*"])
    monkeypatch.delenv("FORGE_WRITE")
    monkeypatch.setenv("FORGE_PYTEST_VERSION", "0.0.1")
    run(pytester, "-p", "forge").assert_outcomes(passed=1, failed=1)
    monkeypatch.delenv("FORGE_PYTEST_VERSION")
    monkeypatch.setenv("FORGE_JAXREWRITE_VERSION", "0.0.1")
    run(pytester, "-p", "forge").assert_outcomes(passed=1, failed=1)


def test_the_pipeline_name_is_a_cache_key_part() -> None:
    names = {pipeline_name(v, hook) for v in ("8.4.2", "9.0.3") for hook in (False, True)}
    assert len(names) == 4
    assert all(name.isalnum() and name.startswith("pytest") for name in names)


# -- a loader jaxrewrite does not know (issue 52 item 9) ----------------------------------------

UNKNOWN_LOADER_CONFTEST = """\
import importlib.abc, importlib.util, os, sys


class CustomLoader(importlib.abc.Loader):
    def __init__(self, path):
        self.path = path

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        with open(self.path) as file:
            exec(compile(file.read(), self.path, "exec"), module.__dict__)


class CustomFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "helper":
            return None
        found = os.path.join(os.path.dirname(__file__), "helper.py")
        return importlib.util.spec_from_file_location(name, found, loader=CustomLoader(found))


sys.meta_path.insert(0, CustomFinder())
"""

HELPER = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static


@jax.jit
def f(x, n: Static[int]):
    return x * n
"""


@pytest.mark.parametrize("where", ["conftest", "test module"])
def test_a_module_another_finder_loads_is_an_error_naming_finder_and_loader(
    pytester: pytest.Pytester, where: str
) -> None:
    """The module ran unrewritten because a finder/loader jaxrewrite does not know took it: the
    run fails (imported by a conftest too, before pytest's filters are in force), naming both
    and the guide's section on composing."""
    conftest = UNKNOWN_LOADER_CONFTEST + ("import helper\n" if where == "conftest" else "")
    pytester.makepyfile(conftest=conftest, helper=HELPER)
    pytester.makepyfile(
        test_it=(
            "import helper\nimport jax.numpy as jnp\n\n\ndef test_f():\n"
            "    assert helper.f(jnp.ones(2), 2).tolist() == [2.0, 2.0]\n"
        )
    )
    result = run(pytester)
    assert result.ret != pytest.ExitCode.OK
    out = result.stdout.str() + result.stderr.str()
    assert "module 'helper' was not rewritten" in out
    assert "loaded by conftest.CustomLoader (found by the finder conftest.CustomFinder)" in out
    assert "see 'Other import hooks' in the guide" in out
    assert "1 passed" not in out
