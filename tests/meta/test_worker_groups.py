"""The suite's own scheduling (tests/conftest.py): a file of ``ONE_WORKER`` runs on one xdist
worker, so its costly module fixture (a built wheel's venv, a site in Chromium) is built once."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"


def test_a_one_worker_file_runs_on_one_worker(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("xdist")
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(
        test_docs_site="""
        import os, pathlib, time
        import pytest

        @pytest.mark.parametrize("i", range(6))
        def test_page(i):
            time.sleep(0.2)
            out = pathlib.Path(__file__).parent / f"ran-{i}"
            out.write_text(os.environ["PYTEST_XDIST_WORKER"])
        """,
        test_other="""
        import time
        import pytest

        @pytest.mark.parametrize("i", range(6))
        def test_other(i):
            time.sleep(0.2)
        """,
    )
    monkeypatch.setenv("PYTHONPATH", str(CONFTEST.parent))  # the support modules it imports
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "2")  # as on the two-core CI machine
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-v")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    workers = {(pytester.path / f"ran-{i}").read_text() for i in range(6)}
    assert len(workers) == 1, workers
    assert len(set(result.stdout.str().split()) & {"[gw0]", "[gw1]"}) == 2  # both did work
