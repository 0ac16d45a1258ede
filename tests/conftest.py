"""Suite-wide setup: several CPU devices for pmap tests, ``--update-golden``, and the suite in
parallel by default (pytest-xdist, one worker per core; ``-n 0`` runs it in one process)."""

from __future__ import annotations

import os
from typing import Any

# Must happen before anything imports jax: pmap tests need several (CPU) devices.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import pytest  # noqa: E402


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden/*.out.py and golden/*.err from the current engine instead of comparing",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


#: Test files with the longest tests, run first so that no worker is left with a long tail.
SLOW_FIRST = (
    "test_benchmarks_smoke.py",
    "test_migrate.py",
    "test_precommit.py",
    "test_library.py",
    "test_packaging.py",
    "test_corpus.py",
    "test_docs_site.py",
    "test_check.py",
    "test_pytest_plugin.py",
    "test_notrewritten.py",
)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``-n auto`` unless ``-n`` was given: before xdist reads it (its own hook is tryfirst too,
    and a conftest's runs before an installed plugin's). Not in a worker (it would start its own
    workers), not without xdist (the Python 3.14 leg), not with ``--pdb`` or ``--collect-only``."""
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return
    if config.option.numprocesses is None and not config.option.usepdb and not config.option.collectonly:
        config.option.numprocesses = "auto"
        if config.option.dist == "no":
            config.option.dist = "loadgroup"  # as "load", but each file below stays on one worker


#: Files whose module-scoped fixture is costly (a venv with a built wheel, a built site, a
#: converted corpus, an IPython shell): their tests share one worker, so it is built once.
ONE_WORKER = ("test_library.py", "test_packaging.py", "test_docs_site.py", "test_corpus.py", "test_ipython.py")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Tell each worker that the controller groups by ``xdist_group``: workers build their
    options from the command line, which does not say so when the hook above chose it."""
    node.workerinput["jaxrewrite_loadgroup"] = node.config.option.dist == "loadgroup"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest files first (stable within each group, so every worker sees one order), and
    the ``ONE_WORKER`` files grouped (before xdist's own hook reads the groups)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and workerinput.get("jaxrewrite_loadgroup"):
        config.option.loadgroup = True
    rank = {name: at for at, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOW_FIRST)))
    for item in items:
        if item.path.name in ONE_WORKER:
            item.add_marker(pytest.mark.xdist_group(item.path.name))
