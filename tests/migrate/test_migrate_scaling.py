"""migrate is linear in the module (issue 45): counted, never timed, and its diff from the edits.

The count is of Python lines executed (``sys.settrace``), which is deterministic: a module four
times the size must cost about four times the lines. Before the fix every offset of the round
trip scanned every edit, every spec keyword scanned every use, and difflib compared the whole
module: 200 -> 800 functions cost 8.8 times the lines; now 4.0.
"""

from __future__ import annotations

import difflib
import io
import random
import re
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from jaxrewrite.commands.migrate import migrate
from jaxrewrite.engine.edits import splice
from jaxrewrite.engine.read.source import source_lines, unified_diff
from jaxrewrite.migrate import migrate_source

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from bench_migrate import migrate_and_diff, spec_module  # noqa: E402


def _not_local_module(calls: int) -> str:
    """Specs on imported functions, the name's binding looked up per call: all reported."""
    return "import jax\nfrom math import hypot\n\n" + "".join(
        f"h_{i} = jax.jit(\n    hypot,\n    static_argnums=0,\n)\n\n\ndef f_{i}(x):\n"
        "    return x\n\n\n"
        for i in range(calls)
    )


def _refused_module(functions: int) -> str:
    """Specs that are no literal: each a RewriteError of the engine's reader, refused."""
    return "import jax\nfrom functools import partial\nNUMS = [1]\n\n" + "".join(
        f"@partial(jax.jit, static_argnums=NUMS)\ndef f_{i}(x, n):\n    return x\n\n\n"
        for i in range(functions)
    )


def _lines_executed(text: str) -> int:
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        count += 1
        return local

    sys.settrace(lambda frame, event, arg: local)
    try:
        migrate_and_diff(text)
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize(
    "module",
    [spec_module, _not_local_module, _refused_module],
    ids=["migrated", "not-local", "refused"],
)
def test_migrate_and_its_diff_grow_linearly_with_the_module(module: Any) -> None:
    migrate_and_diff(module(20))  # first-use costs (regex compiles, lazy imports) paid here
    small, large = _lines_executed(module(200)), _lines_executed(module(800))
    assert large <= 5 * small, (
        f"800 functions executed {large / small:.1f} x the lines of 200 (linear: 4)"
    )


def test_every_spec_on_an_imported_function_is_reported_with_its_binding() -> None:
    refused = migrate_source(_not_local_module(3), "m.py").refused
    assert [(r.line, r.reason.value) for r in refused] == [
        (4, "not-a-local-def"),
        (14, "not-a-local-def"),
        (24, "not-a-local-def"),
    ]
    assert all("which lives in another module (math.hypot)" in r.message for r in refused)


def _difflib(before: str, after: str, display: str) -> str:
    lines = difflib.unified_diff(
        source_lines(before), source_lines(after), f"a/{display}", f"b/{display}"
    )
    return "".join(
        line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
        for line in lines
    )


def _patched(before: str, diff: str) -> str:
    """Apply a unified diff to ``before`` (as ``patch`` would, hunks at their stated lines)."""
    old = source_lines(before)
    out: list[str] = []
    at = 0
    body = source_lines(diff)[2:]
    previous = ""
    for line in body:
        hunk = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", line)
        if hunk:
            start = int(hunk[1]) - (0 if hunk[2] == "0" else 1)
            out += old[at:start]
            at = start
        elif line.startswith("\\ No newline"):
            if previous[0] != "-":  # the line it follows ends the new text
                out[-1] = out[-1].rstrip("\r\n")
        elif line[0] == " ":
            assert old[at] == line[1:] or old[at] == line[1:].rstrip("\n")
            out.append(old[at])
            at += 1
        elif line[0] == "-":
            assert old[at] == line[1:] or old[at] == line[1:].rstrip("\n")
            at += 1
        else:
            out.append(line[1:])
        previous = line
    return "".join(out + old[at:])


GOLDEN_INPUTS = sorted(p for p in (REPO / "golden").rglob("*.py") if not p.name.endswith(".out.py"))


@pytest.mark.parametrize("path", GOLDEN_INPUTS, ids=lambda p: str(p.relative_to(REPO / "golden")))
def test_the_diff_from_the_edits_is_difflibs_on_every_golden_input(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        result = migrate_source(text, path.name)
    except SyntaxError:
        return  # the golden files of errors: nothing to diff
    if not result.changed:
        assert unified_diff(text, result.text, "m.py", result.changes) == ""
        return
    assert unified_diff(text, result.text, "m.py", result.changes) == _difflib(
        text, result.text, "m.py"
    )


@pytest.mark.parametrize("functions", [8, 250, 1000])
def test_the_diff_of_a_large_module_patches_to_the_migrated_text(functions: int) -> None:
    text = spec_module(functions)
    result = migrate_source(text, "m.py")
    diff = unified_diff(text, result.text, "m.py", result.changes)
    assert _patched(text, diff) == result.text
    if functions == 8:
        assert diff == _difflib(text, result.text, "m.py")
    else:  # difflib's junk heuristic (blank lines are "popular") loses track: ours stays small
        assert len(diff) < len(_difflib(text, result.text, "m.py"))


@pytest.mark.parametrize(
    "before",
    [
        "a = 1\nb = 2\nc = 3\n",
        "a = 1\r\nb = 2\r\nc = 3\r\n",
        "a = 1\rb = 2\rc = 3\r",
        "a = 1\nb = 2\x0c\nc = 3",  # a form feed is no line break; no newline at the end
        "",
    ],
    ids=["lf", "crlf", "cr", "formfeed-no-final-newline", "empty"],
)
def test_any_edits_give_a_diff_that_patches_to_the_result(before: str) -> None:
    rng = random.Random(45)
    pieces = ["", "x", "\n", "# c\n", "y = 0\n", "\r\n"]
    for _ in range(200):
        offsets = sorted(
            rng.sample(range(len(before) + 1), k=min(len(before) + 1, rng.randint(1, 4)))
        )
        spans = zip(offsets[::2], [*offsets[1::2], offsets[-1]])
        changes = [(start, end, rng.choice(pieces)) for start, end in spans]
        after = splice.apply(before, [splice.Edit(*change) for change in changes])
        diff = unified_diff(before, after, "m.py", changes)
        assert _patched(before, diff) == after, (changes, diff)


def test_edits_that_do_not_make_the_text_fall_back_to_difflib() -> None:
    assert unified_diff("a\nb\n", "a\nc\n", "m.py", [(0, 0, "zz")]) == _difflib(
        "a\nb\n", "a\nc\n", "m.py"
    )


@pytest.mark.parametrize("display", ["/abs/m.py", "rel/m.py", "m.py"])
def test_diff_headers_take_one_slash_after_a_and_b(display: str) -> None:
    diff = unified_diff("a = 1\n", "a = 2\n", display, [(4, 5, "2")])
    assert diff.splitlines()[:2] == [f"--- a/{display.lstrip('/')}", f"+++ b/{display.lstrip('/')}"]


def test_the_command_prints_the_diff_of_an_absolute_path_with_one_slash(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(spec_module(4))
    out, err = io.StringIO(), io.StringIO()
    assert migrate([str(path)], False, out, err) == 1
    assert out.getvalue().startswith(f"--- a{path.as_posix()}\n+++ b{path.as_posix()}\n")
    assert "//" not in out.getvalue().splitlines()[0]
