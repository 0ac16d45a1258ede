"""The package type-checks: ``mypy --strict`` over jaxrewrite/, as configured in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_mypy_strict_on_the_package(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache"), "jaxrewrite"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout
