"""Suite-wide setup: several CPU devices for pmap tests, ``--update-golden``, and the suite in
parallel by default (pytest-xdist, one worker per core; ``-n 0`` runs it in one process)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

# Must happen before anything imports jax: pmap tests need several (CPU) devices.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import pytest  # noqa: E402

if TYPE_CHECKING:
    from prewarmed import Prewarmed


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help=(
            "rewrite golden/*.out.py and golden/*.err from the current engine instead of comparing"
        ),
    )


@pytest.fixture(scope="session")
def prewarmed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prewarmed]:
    """Python runs forked from an interpreter that has imported jax (tests/prewarmed.py), shared
    by the files that start many: one server per worker and startup environment. Imported here,
    not at the top: the Python 3.14 leg (Pyodide, no fork) loads this file too."""
    from prewarmed import Prewarmed

    servers = Prewarmed(tmp_path_factory.mktemp("prewarmed"))
    yield servers
    servers.close()


#: Files whose runs without interpreter options start as forks of the session's prewarmed
#: interpreter: they call ``support.server()`` (.ci/run runs them fresh too).
FORKING = (
    "test_notrewritten.py",
    "test_pytest_plugin.py",
    "test_runner_cache.py",
    "test_runner_children.py",
)


@pytest.fixture(autouse=True)
def _forking(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.path.name not in FORKING:
        yield
        return
    import support

    support.SERVER = request.getfixturevalue("prewarmed")
    try:
        yield
    finally:
        support.SERVER = None


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


#: The longest single tests, handed out before anything else: each is one worker's for its whole
#: run, so it must start at once, not after the short tests queued before it in its file.
LONGEST_FIRST = ("test_migrate.py::test_corpus_migrates_and_round_trips",)

#: Test files with the longest tests (or a costly module fixture, see ONE_WORKER), roughly the
#: longest first, so that no worker is left with a long tail while the other is idle.
SLOW_FIRST = (
    "test_migrate.py",
    "test_library.py",
    "test_benchmarks_smoke.py",
    "test_corpus.py",
    "test_check.py",
    "test_ipython.py",
    "test_docs_site.py",
    "test_packaging.py",
    "test_precommit.py",
    "test_runner_children.py",
    "test_pytest_plugin.py",
    "test_notrewritten.py",
    "test_runner_cache.py",
    "test_notebook.py",
    "test_typecheck.py",
    "test_docs.py",
)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``-n auto`` unless ``-n`` was given: before xdist reads it (its own hook is tryfirst too,
    and a conftest's runs before an installed plugin's). Not in a worker (it would start its own
    workers), not without xdist (the Python 3.14 leg), not with ``--pdb`` or ``--collect-only``."""
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return
    if (
        config.option.numprocesses is None
        and not config.option.usepdb
        and not config.option.collectonly
    ):
        config.option.numprocesses = "auto"
        if config.option.dist == "no":
            config.option.dist = "loadgroup"  # as "load", but each file below stays on one worker
            # Hand out work in this file's order (longest first), not xdist's default for groups:
            # by test count, which sends every group before the longest single test.
            config.option.loadscopereorder = False


#: Files whose module-scoped fixture is costly (a venv with a built wheel, a built site, a
#: converted corpus, an IPython shell): their tests share one worker, so it is built once.
ONE_WORKER = (
    "test_library.py",
    "test_packaging.py",
    "test_docs_site.py",
    "test_corpus.py",
    "test_ipython.py",
)


def pytest_configure(config: pytest.Config) -> None:
    """In each process that runs tests (a worker, or the only process), an XLA compilation cache
    of its own for the run (``_compiled_programs``); before any of them, jaxrewrite's bytecode
    (``_bytecode``)."""
    if not hasattr(config, "workerinput"):
        _bytecode()
    runs_tests = hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None)
    wanted = (
        os.environ.get("JAXREWRITE_TEST_XLA_CACHE") != "0"
        and "JAX_COMPILATION_CACHE_DIR" not in os.environ
    )
    if (
        runs_tests and wanted and importlib.util.find_spec("jax") is not None
    ):  # no jax: the Python 3.14 leg
        config.stash[_XLA_CACHE] = _compiled_programs()


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_XLA_CACHE, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


_XLA_CACHE = pytest.StashKey[str]()


def _bytecode() -> None:
    """Write jaxrewrite's own ``__pycache__`` once, before any test starts a program.

    The checkout is installed editable, which writes no bytecode, and this project's machines set
    PYTHONDONTWRITEBYTECODE, so on a clean clone most of the suite's ~700 programs that import
    jaxrewrite (forks of tests/prewarmed.py too: the server never imports it) compiled the package
    from source again, until a test that allows bytecode happened to write a module's: 0.13-0.18 s
    of CPU apiece for a command such as ``show`` (six such files, two interleaved rounds:
    151-155 s of CPU without, 125-136 s with). A user's machine has these files after the first
    import, and pip writes them when it installs the wheel; they are timestamped as Python's own,
    so an edited module is compiled again as ever. Not on Pyodide (the Python 3.14 leg)."""
    if sys.platform == "emscripten":
        return
    import compileall

    from support import REPO

    compileall.compile_dir(str(REPO / "jaxrewrite"), quiet=2)


def _compiled_programs() -> str:
    """Turn on JAX's persistent compilation cache in this process only, in a new folder.

    Tests build many functions that lower to the same program (a rewritten module and its
    hand-written twin; each hypothesis example), and JAX's own caches key on the function object, so
    XLA compiles each again (~40 ms of CPU apiece: a quarter of the golden and property tests'
    time). This cache keys on the program, so each compiles once. Tracing is untouched (a hit skips
    XLA's compile only): trace counts and results are as without it. Set by ``jax.config`` rather
    than the environment, so the programs the tests start never share it (no two processes write one
    entry; those run as another user never meet its files). ``JAXREWRITE_TEST_XLA_CACHE=0`` runs
    without it, as .ci/run's step with the shortcuts off does."""
    import jax

    folder = tempfile.mkdtemp(prefix="jaxrewrite-tests-xla-")
    jax.config.update("jax_compilation_cache_dir", folder)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return folder


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Tell each worker that the controller groups by ``xdist_group``: workers build their
    options from the command line, which does not say so when the hook above chose it."""
    node.workerinput["jaxrewrite_loadgroup"] = node.config.option.dist == "loadgroup"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest tests, then the longest files first (stable within each group, so every worker
    sees one order), and the ``ONE_WORKER`` files grouped (before xdist's own hook reads them)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and workerinput.get("jaxrewrite_loadgroup"):
        config.option.loadgroup = True
    rank = {name: at for at, name in enumerate(SLOW_FIRST)}

    def order(item: pytest.Item) -> tuple[bool, int]:
        longest = f"{item.path.name}::{getattr(item, 'originalname', item.name)}" in LONGEST_FIRST
        return not longest, rank.get(item.path.name, len(SLOW_FIRST))

    items.sort(key=order)
    for item in items:
        if item.path.name in ONE_WORKER:
            item.add_marker(pytest.mark.xdist_group(item.path.name))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Give each grouped item the ``@group`` suffix of its node id where xdist's own hook could
    not: from pytest 9.2 a node id is a structured value that xdist's assignment to ``_nodeid``
    no longer reaches (pytest-dev/pytest-xdist#1386), so every group was split across workers and
    each costly module fixture built once per worker. Before xdist's hook sends the ids on."""
    if not getattr(session.config.option, "loadgroup", False):
        return
    for item in session.items:
        marks = item.iter_markers("xdist_group")
        groups = sorted(
            {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in marks}
        )
        node_id = getattr(item, "_id", None)
        if groups and node_id is not None and "@" not in item.nodeid.rpartition("]")[2]:
            item._id = type(node_id).parse(f"{item.nodeid}@{'_'.join(groups)}")
