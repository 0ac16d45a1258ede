"""ruff in CI and before each commit (issue 53 item 4): one pinned version, the same folders.

setup.cfg's ``lint`` extra pins ruff; .ci/run installs that pin and runs ``ruff format --check``
and ``ruff check`` over the folders below; .pre-commit-config.yaml runs the same release (the
ruff-pre-commit tag) over the same folders. Settings live in pyproject.toml alone.
"""

from __future__ import annotations

import configparser
import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
FOLDERS = ("jaxrewrite", "tests", "benchmarks", "tools")


def _pin() -> str:
    config = configparser.ConfigParser()
    config.read(REPO / "setup.cfg", encoding="utf-8")
    (requirement,) = config["options.extras_require"]["lint"].split()
    name, _, version = requirement.partition("==")
    assert name == "ruff" and re.fullmatch(r"\d+\.\d+\.\d+", version), requirement
    return version


def test_ci_runs_the_pinned_ruff_over_the_package_tests_and_benchmarks() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert '["lint"]' in ci  # the pin is read from setup.cfg, not written twice
    for command in ("format --check", "check"):
        assert re.search(rf'ruff" {command} {" ".join(FOLDERS)}$', ci, re.M), command
    # Before the suite: a lint failure is reported in seconds.
    assert ci.index('ruff" check') < ci.index("python -m pytest")


def test_pre_commit_runs_the_same_ruff_on_the_same_folders() -> None:
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    (repo,) = [r for r in config["repos"] if r["repo"].endswith("/ruff-pre-commit")]
    assert repo["rev"] == f"v{_pin()}"
    hooks = {hook["id"]: hook for hook in repo["hooks"]}
    assert set(hooks) == {"ruff-check", "ruff-format"}
    for hook in hooks.values():
        files = re.compile(hook["files"])
        assert all(files.search(f"{folder}/x.py") for folder in FOLDERS), hook
        assert not files.search("golden/x.py") and not files.search("examples/x.py"), hook
