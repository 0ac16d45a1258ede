"""Suite-wide setup: several CPU devices for pmap tests, and ``--update-golden``."""

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
