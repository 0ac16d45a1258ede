"""Every code example in README.md and docs/*.md is executed; a broken example fails here.

Conventions, read from the Markdown:

* Every fenced ```python block (also ``py``/``python3``) is a test. It is written to
  ``example.py`` in a fresh temporary directory and run as ``python -m jaxrewrite example.py`` (the
  user's path), with the environment of the README's first command (``XLA_FLAGS``) and the checkout
  first on ``PYTHONPATH``: in a process of its own, forked from one that has imported jax and
  nothing else (tests/prewarmed.py: ~2 s of CPU saved per block; ``JAXREWRITE_TEST_FRESH=1`` starts
  a fresh interpreter for each instead). It must exit 0, so blocks check their claims with
  ``assert``. A block that opts in (``# jaxrewrite: enable`` in its header) is rewritten; any other
  block runs unchanged.
* An HTML comment right before a block's opening fence (blank lines allowed in between)
  changes what is checked:

  ``<!-- docs-test: skip REASON -->``
      The block is not run; REASON is required and becomes the pytest skip reason.
  ``<!-- docs-test: output -->``
      The next fenced block, a ```text block, is the block's exact stdout
      (trailing whitespace ignored).
  ``<!-- docs-test: show -->``
      The block runs as usual and the next ```python block is the exact stdout of
      ``jaxrewrite show example.py``. That expected block is then itself run with plain
      ``python`` (no hook): it is what Python executes, so it has to work on its own.
  ``<!-- docs-test: error -->``
      The block must fail (non-zero exit) and every non-blank line of the next ```text
      block must appear in its stderr.
  ``<!-- docs-test: example -->`` (before a ```text block, README only)
      The text is the exact stdout of the README's first command, minus its install step,
      run from the repository root in a fresh interpreter, as typed.

* Any other ``docs-test`` comment, or a directive whose partner block is missing, fails.

The README's first screen is for users (the install that works today, ``python -m pip install
.``, the seed in a few lines, how to run their own code); its two commands for a checkout are
the first two blocks after the heading ``## From a checkout``, and ``.ci/run`` must run the
second one verbatim.
"""

from __future__ import annotations

import configparser
import difflib
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from docs_support import (
    CHECKOUT_HEADING,
    DOCS,
    README,
    REPO,
    Block,
    Case,
    build_cases,
    parse_blocks,
)
from packaging.requirements import Requirement
from prewarmed import Prewarmed

TIMEOUT = 300
#: Every test file of the suite, in whichever folder of tests/ it sits.
TESTS = sorted((REPO / "tests").rglob("test_*.py"))
_SHOW_BOOT = (
    "import sys; from jaxrewrite.cli import main; "
    "sys.argv = ['jaxrewrite', *sys.argv[1:]]; sys.exit(main())"
)


def _normalize(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines())


def checkout_blocks() -> list[Block]:
    """The README's blocks after its ``## From a checkout`` heading."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert CHECKOUT_HEADING in lines, (
        f"README.md needs the heading {CHECKOUT_HEADING!r} before its two commands"
    )
    heading = lines.index(CHECKOUT_HEADING) + 1
    blocks = [block for block in parse_blocks(README) if block.line > heading]
    assert len(blocks) >= 2, f"README.md's {CHECKOUT_HEADING!r} must start with its two commands"
    return blocks


def readme_commands() -> tuple[str, str]:
    first, second = checkout_blocks()[:2]
    return first.code.strip(), second.code.strip()


def _run_env() -> dict[str, str]:
    """The README first command's variables, the checkout first on the import path."""
    env = dict(os.environ)
    first, _ = readme_commands()
    for token in shlex.split(first.split("&&")[-1]):
        if "=" not in token or token.startswith("-"):
            break
        name, _, value = token.partition("=")
        env[name] = value
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env.setdefault("JAX_PLATFORMS", "cpu")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        cwd=cwd,
        env=_run_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def _numbered(block: Block) -> str:
    return "\n".join(
        f"{block.line + n:5d}  {text}" for n, text in enumerate(block.code.splitlines(), start=1)
    )


def _report(block: Block, what: str, proc: subprocess.CompletedProcess[str]) -> str:
    return (
        f"{block.where}: {what}\n--- block ---\n{_numbered(block)}\n"
        f"--- exit {proc.returncode}; stdout ---\n{proc.stdout}\n--- stderr ---\n"
        f"{proc.stderr[-6000:]}"
    )


ALL_CASES = [case for doc in DOCS for case in build_cases(doc)]


def test_docs_are_there_and_have_examples() -> None:
    assert (REPO / "docs" / "getting-started.md").is_file()
    for doc in DOCS:
        runnable = [c for c in build_cases(doc) if c.mode in ("run", "error", "plain")]
        assert runnable, f"{doc.name} has no executed python block"


def test_readme_checkout_section_starts_with_its_two_commands() -> None:
    first, second = checkout_blocks()[:2]
    assert first.lang == second.lang == "bash"
    install_run, install_test = readme_commands()
    assert "\n" not in install_run and "\n" not in install_test
    assert install_run.startswith("python -m pip install -e . && ")
    assert install_run.endswith("python -m jaxrewrite examples/hypercube.py")
    assert install_test == "python -m pip install -e '.[test]' && python -m pytest"
    assert (REPO / "examples" / "hypercube.py").is_file()


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    _, install_test = readme_commands()
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert install_test in [line.strip() for line in ci.splitlines()], (
        ".ci/run must run the README's test command"
    )
    assert os.access(REPO / ".ci" / "run", os.X_OK), ".ci/run must be executable"


#: jax's own stack: the test extra may bound one of these (for the suite's time, setup.cfg says
#: why) only while a leg runs the whole suite again with every one of them at its newest.
JAX_STACK = {"jax", "jaxlib", "ml-dtypes"}


def test_every_bound_on_jaxs_stack_in_the_test_extra_is_lifted_by_the_newest_leg() -> None:
    config = configparser.ConfigParser()
    config.read(REPO / "setup.cfg", encoding="utf-8")
    lines = [line.strip() for line in config["options.extras_require"]["test"].splitlines()]
    requirements = [Requirement(line) for line in lines if line and not line.startswith("#")]
    bounded = {
        req.name.lower().replace("_", "-")
        for req in requirements
        if req.name.lower().replace("_", "-") in JAX_STACK
        and any(s.operator in ("<", "<=", "==", "!=", "~=") for s in req.specifier)
    }
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    upgrades = [
        set(shlex.split(line.replace('"$newest"', "python")))
        for line in ci
        if line.startswith('"$newest" -m pip install') and "--upgrade" in line
    ]
    assert upgrades and all(
        name.replace("-", "_") in upgrades[0] or name in upgrades[0] for name in JAX_STACK
    ), upgrades
    assert '"$newest" -m pytest -p no:cacheprovider -q' in ci, (
        ".ci/run's newest leg must run the whole suite"
    )
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(REPO / "tox.ini", encoding="utf-8")
    newest = tox["testenv:newest"]
    assert "newest" in [env.strip() for env in tox["tox"]["envlist"].split(",")]
    lifted = set(shlex.split(newest["commands_pre"]))
    assert "--upgrade" in lifted and all(
        name.replace("-", "_") in lifted or name in lifted for name in JAX_STACK
    ), lifted
    assert "commands" not in newest and "extras" not in newest, (
        "tox's newest env runs [testenv]'s whole suite"
    )
    # The test extra bounds nothing of jax's stack: a user's newer ml_dtypes is never downgraded.
    assert bounded == set(), bounded


def test_every_test_file_the_readme_samples_runs_at_full_depth_in_ci() -> None:
    """The README's command samples the real-code corpus and each property's examples
    (tests/depth.py): each test file that samples is one .ci/run runs under
    ``JAXREWRITE_FULL=1``."""
    sampling = sorted(
        path.relative_to(REPO).as_posix()
        for path in TESTS
        if path.name != Path(__file__).name
        and re.search(
            r"^\s*from (depth|corpus_support) import "
            r".*\b(examples|FULL|SHARE|at_least|corpus_files)\b|sampled=True",
            path.read_text(encoding="utf-8"),
            re.MULTILINE,
        )
    )
    assert {
        "tests/rules/test_check.py",
        "tests/migrate/test_corpus.py",
        "tests/migrate/test_migrate.py",
        "tests/engine/test_properties.py",
    } <= set(sampling), sampling
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").replace("\\\n", " ")
    full = [
        shlex.split(line)
        for line in ci.splitlines()
        if line.startswith("JAXREWRITE_FULL=1 python -m pytest")
    ]
    assert full, ".ci/run runs nothing under JAXREWRITE_FULL=1"
    assert [name for name in sampling if not any(name in words for words in full)] == [], (
        sampling,
        full,
    )
    for words in full:
        selected = words[words.index("-k") + 1] if "-k" in words else ""
        if "tests/migrate/test_corpus.py" in words:
            parts = tuple(part.strip() for part in selected.split(" or "))
            for name in (
                "test_check_never_crashes_on_real_code",
                "test_corpus_migrates_and_round_trips",
                "test_corpus_",
            ):
                assert not selected or name.startswith(parts), (name, selected)
        else:
            assert not selected, ("the property files run whole", words)


def test_ci_runs_the_files_the_shortcuts_serve_with_the_shortcuts_off() -> None:
    """The suite's two shortcuts (programs forked from a prewarmed interpreter, each test
    process's XLA cache: tests/conftest.py) are off in one .ci/run step, over the files that
    fork and the files that compile the most."""
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").replace("\\\n", " ")
    off = [
        shlex.split(line)
        for line in ci.splitlines()
        if "JAXREWRITE_TEST_XLA_CACHE=0" in line and "pytest" in line
    ]
    assert len(off) == 1 and "JAXREWRITE_TEST_FRESH=1" in off[0], off
    forking = re.search(
        r"^FORKING = \((.*?)\)",
        (REPO / "tests" / "conftest.py").read_text(encoding="utf-8"),
        re.M | re.S,
    )
    assert forking is not None
    where = {path.name: path.relative_to(REPO).as_posix() for path in TESTS}
    files = {where[name] for name in re.findall(r'"(test_\w+\.py)"', forking.group(1))}
    # the files that take the server as a fixture (test_prewarmed.py runs both ways itself)
    files |= {
        where[path.name]
        for path in TESTS
        if path.name != "test_prewarmed.py"
        and re.search(r"\bprewarmed: Prewarmed\b", path.read_text(encoding="utf-8"))
    }
    assert len(files) >= 6 and files <= set(off[0]), sorted(files - set(off[0]))
    assert {"tests/engine/test_golden.py", "tests/engine/test_execution.py"} <= set(off[0]), off[0]


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.block.where for c in ALL_CASES])
def test_doc_block(case: Case, tmp_path: Path, prewarmed: Prewarmed) -> None:
    block = case.block
    if case.mode == "bad":
        pytest.fail(f"{block.where}: {case.problem}")
    if case.mode == "skip":
        pytest.skip(f"{block.where}: {case.problem}")
    if case.mode == "example":
        _, _, run_part = readme_commands()[0].partition("&&")
        argv = [t for t in shlex.split(run_part) if "=" not in t or t.startswith("-")]
        assert argv[0] == "python", run_part
        proc = _run([sys.executable, *argv[1:]], REPO)
        assert proc.returncode == 0, _report(block, "the README's example command failed", proc)
        assert _normalize(proc.stdout) == _normalize(case.expect_stdout or ""), _report(
            block, "the example's output differs from the README", proc
        )
        return

    script = tmp_path / "example.py"
    script.write_text(block.code, encoding="utf-8")
    if case.mode == "plain":
        proc = prewarmed.run(["example.py"], tmp_path, TIMEOUT, _run_env())
        assert proc.returncode == 0, _report(
            block, "the rewritten code shown here fails under plain python", proc
        )
        return

    proc = prewarmed.run(["-m", "jaxrewrite", "example.py"], tmp_path, TIMEOUT, _run_env())
    if case.mode == "error":
        assert proc.returncode != 0, _report(block, "this example should fail but ran", proc)
        for line in case.expect_stderr_lines:
            assert line in proc.stderr, _report(block, f"stderr lacks {line!r}", proc)
        return
    assert proc.returncode == 0, _report(block, "example failed", proc)
    if case.expect_stdout is not None:
        assert _normalize(proc.stdout) == _normalize(case.expect_stdout), _report(
            block, "stdout differs from the text block after it", proc
        )
    if case.expect_show is not None:
        shown = _run([sys.executable, "-c", _SHOW_BOOT, "show", "example.py"], tmp_path)
        assert shown.returncode == 0, _report(block, "jaxrewrite show failed", shown)
        assert _normalize(shown.stdout) == _normalize(case.expect_show), (
            _report(block, "jaxrewrite show prints something else than the block after it", shown)
            + "\n--- diff (expected -> actual) ---\n"
            + "\n".join(
                difflib.unified_diff(
                    _normalize(case.expect_show).splitlines(),
                    _normalize(shown.stdout).splitlines(),
                    lineterm="",
                )
            )
        )


# --- the conventions themselves ---------------------------------------------------------

_SAMPLE_DOC = """\
Intro.

<!-- docs-test: output -->
```python
print("hi")
```

```text
hi
```

<!-- docs-test: skip -->
```python
broken(
```

<!-- docs-test: skip needs a GPU -->
```python
gpu_only()
```

<!-- docs-test: show -->
```python
# jaxrewrite: enable
```

```python
# shown
```

<!-- docs-test: eror -->
```python
pass
```

<!-- docs-test: error -->
```python
raise SystemExit(1)
```

No text block follows that error block, so it is malformed.

```bash
echo not run
```
"""


def test_directives_are_parsed_strictly(tmp_path: Path) -> None:
    doc = tmp_path / "sample.md"
    doc.write_text(_SAMPLE_DOC)
    cases = build_cases(doc)
    summary = [(c.block.line, c.mode, c.problem) for c in cases]
    assert summary == [
        (4, "run", ""),
        (13, "bad", "docs-test: skip needs a reason"),
        (18, "skip", "needs a GPU"),
        (23, "run", ""),
        (27, "plain", ""),
        (32, "bad", "unknown directive 'eror' on line 31"),
        (37, "bad", "docs-test: error needs a ```text block right after"),
    ], summary
    assert cases[0].expect_stdout == "hi\n"
    assert cases[3].expect_show == "# shown\n"
