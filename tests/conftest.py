"""Suite-wide setup: several CPU devices for pmap tests, ``--update-golden``, and the suite in
parallel by default (pytest-xdist, one worker per core; ``-n 0`` runs it in one process)."""

from __future__ import annotations

import os

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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first (stable within each group, so every worker sees one order)."""
    rank = {name: at for at, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOW_FIRST)))
