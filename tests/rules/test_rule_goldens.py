"""Each rule's golden cases: ``tests/rules/<code>_<name>/NAME.py`` and ``NAME.findings``, the text
``check`` prints for it (``--update-golden`` writes them; read every change). A new rule brings
its folder; the cases of the rules before it stay in ``golden/check/`` (``tests/test_check.py``),
whose paths their findings name."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxrewrite.commands.check import check_text, render

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CASES = sorted(p for p in HERE.glob("jr*_*/*.py"))


@pytest.mark.parametrize("path", CASES, ids=[p.relative_to(HERE).as_posix() for p in CASES])
def test_rule_golden_findings(path: Path, update_golden: bool) -> None:
    display = path.relative_to(ROOT).as_posix()
    text = render(check_text(path.read_text(encoding="utf-8"), display), "text")
    expected = path.with_suffix(".findings")
    if update_golden:
        expected.write_text(text, encoding="utf-8")
        return
    assert expected.exists(), f"missing {expected.name}; run pytest --update-golden and read it"
    assert text == expected.read_text(encoding="utf-8")
    folder = path.parent.name.split("_")[0].upper()
    assert f" {folder} " in text, f"{path.parent.name}: no {folder} finding"
