"""Golden files pin the exact rewritten text; executing them proves what the text means.

``pytest tests/engine/test_golden.py --update-golden`` regenerates the expected files; read every
changed line before committing them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from golden_cases import GOLDEN, case_id, display_name, execute, expected_paths, inputs, render

from jaxrewrite import rewrite_source

CASES = inputs()


@pytest.mark.parametrize("path", CASES, ids=[case_id(p) for p in CASES])
def test_golden_text(path: Path, update_golden: bool) -> None:
    text, is_error = render(path)
    out_path, err_path = expected_paths(path)
    target, other = (err_path, out_path) if is_error else (out_path, err_path)
    if update_golden:
        target.write_text(text, encoding="utf-8")
        other.unlink(missing_ok=True)
        return
    assert not other.exists(), (
        f"{other.name} is stale: the case now {'fails' if is_error else 'rewrites'}"
    )
    assert target.exists(), f"missing {target.name}; run pytest --update-golden and read it"
    assert text == target.read_text(encoding="utf-8")


OUTPUTS = [p for p in CASES if expected_paths(p)[0].exists()]


@pytest.mark.parametrize("path", OUTPUTS, ids=[case_id(p) for p in OUTPUTS])
def test_golden_output_keeps_lines_and_is_fixed_point(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    out = expected_paths(path)[0].read_text(encoding="utf-8")
    assert out.count("\n") == source.count("\n"), "line numbers moved"
    compile(out, display_name(path), "exec", dont_inherit=True)
    assert rewrite_source(out, display_name(path)) == out, "rewriting is not idempotent"
    # Lines that change are only decorator or call lines, never bodies or signatures.
    for before, after in zip(source.splitlines(), out.splitlines()):
        if before != after:
            assert not before.lstrip().startswith(("def ", "async def ", "class ")), after


CHECKED = [p for p in OUTPUTS if "def _check(" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", CHECKED, ids=[case_id(p) for p in CHECKED])
def test_golden_output_runs(path: Path) -> None:
    """The rewritten module's own ``_check`` passes: statics drive Python control flow, no
    retrace."""
    out = expected_paths(path)[0].read_text(encoding="utf-8")
    module = execute(out, display_name(path), "golden_" + case_id(path).replace("/", "_"))
    module._check()


PLAIN_FAILS = [p for p in CHECKED if "\n_PLAIN_FAILS = True" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", PLAIN_FAILS, ids=[case_id(p) for p in PLAIN_FAILS])
def test_golden_check_fails_without_rewrite(path: Path) -> None:
    """The same ``_check`` fails on the original text: the test would catch a missing rewrite."""
    source = path.read_text(encoding="utf-8")
    # JAX's own errors (TypeError and ValueError, its tracer errors among them) or the case's
    # own assertion.
    with pytest.raises((TypeError, ValueError, AssertionError)):
        module = execute(
            source, display_name(path), "plain_" + case_id(path).replace("/", "_"), rewritten=False
        )
        module._check()


def test_no_orphan_expectations() -> None:
    stems = {p.with_suffix("") for p in CASES}
    for path in GOLDEN.rglob("*"):
        if path.name.endswith(".out.py"):
            assert path.with_name(path.name[: -len(".out.py")]) in stems, path
        elif path.suffix == ".err":
            assert path.with_suffix("") in stems, path
