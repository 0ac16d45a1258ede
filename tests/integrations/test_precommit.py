"""The pre-commit hook, run by the real pre-commit (``try-repo`` installs this checkout into a
fresh hook environment and runs ``jaxrewrite check`` on the files of a throwaway repository)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support import can_build_without_isolation

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden" / "check"


def _committed(repo: Path, tmp_path: Path, **extra: str) -> dict[str, str]:
    """``repo`` made a git repository with its files added, and the environment pre-commit runs
    in (``extra`` set too)."""
    env = {
        **os.environ,
        **extra,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        # The hook's environment sees the installed jax and friends: pip installs only jaxrewrite
        # there, instead of downloading and unpacking jax and jaxlib into it at every run.
        "VIRTUALENV_SYSTEM_SITE_PACKAGES": "1",
        # And it builds jaxrewrite with the setuptools it sees there (tests/meta/test_packaging.py's
        # check that it meets pyproject's build requirements), not a fresh one per run.
        **({"PIP_NO_BUILD_ISOLATION": "0"} if can_build_without_isolation() else {}),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "add", "."], cwd=repo, check=True, env=env)
    return env


def test_hook_definition_names_the_command() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert (
        "- id: jaxrewrite-check" in text
        and "entry: jaxrewrite check" in text
        and "types: [python]" in text
    )


def test_try_repo_reports_findings_and_passes_clean_files(tmp_path: Path) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    (repo / "helper.py").write_text((GOLDEN / "jr002_helper.py").read_text(encoding="utf-8"))
    (repo / "clean.py").write_text((GOLDEN / "clean.py").read_text(encoding="utf-8"))
    (repo / "notes.txt").write_text("not python: never passed to the hook\n")
    env = _committed(repo, tmp_path)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(ROOT),
            "jaxrewrite-check",
            "--all-files",
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "jaxrewrite check" in out and "Failed" in out
    assert "helper.py:8:10: JR002 the marker on 'square' of 'g' does nothing" in out
    assert "clean.py:" not in out and "notes.txt" not in out


def _guide_snippet() -> str:
    from docs_support import GUIDE_PAGES, parse_blocks

    blocks = [
        b
        for page in GUIDE_PAGES
        for b in parse_blocks(page)
        if b.lang == "yaml" and "jaxrewrite-check" in b.code
    ]
    assert len(blocks) == 1, [b.where for b in blocks]
    return blocks[0].code


def test_the_guides_snippet_is_a_local_hook_without_placeholders() -> None:
    snippet = _guide_snippet()
    assert "OWNER" not in snippet and "https://" not in snippet  # no repository URL exists to name
    assert (
        "repo: local" in snippet
        and "entry: jaxrewrite check" in snippet
        and "types: [python]" in snippet
    )


def test_the_guides_snippet_runs_under_pre_commit(tmp_path: Path) -> None:
    """The guide's .pre-commit-config.yaml, verbatim, in a throwaway repository: pre-commit runs
    the environment's ``jaxrewrite check`` (here a shim for this checkout's) on the Python files."""
    repo = tmp_path / "project"
    repo.mkdir()
    (repo / ".pre-commit-config.yaml").write_text(_guide_snippet(), encoding="utf-8")
    (repo / "helper.py").write_text((GOLDEN / "jr002_helper.py").read_text(encoding="utf-8"))
    (repo / "clean.py").write_text((GOLDEN / "clean.py").read_text(encoding="utf-8"))
    (repo / "notes.txt").write_text("not python: never passed to the hook\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "jaxrewrite"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m jaxrewrite "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = _committed(
        repo,
        tmp_path,
        PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "jaxrewrite check" in out and "Failed" in out
    assert "helper.py:8:10: JR002 the marker on 'square' of 'g' does nothing" in out
    assert "clean.py:" not in out and "notes.txt" not in out
    (repo / "helper.py").unlink()
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    clean = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert clean.returncode == 0 and "Passed" in clean.stdout, clean.stdout + clean.stderr
