"""What the README and the guide claim about the code, checked against the code: the README's
first screen is for users and leads with an install that works today, the README stays short
and keeps no table of codes (each code has one row, in the guide: other branches change codes,
so one place merges), and the guide's table of flags and exit codes names every
flag and status that ``check --help`` and ``migrate --help`` print.

The codes and flags are read from the code, never listed here, so a new code or flag fails these
tests until the docs list it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docs_support import CHECKOUT_HEADING, GUIDE_PAGES, guide_text, parse_blocks
from support import REPO, child_env, jaxrewrite

from jaxrewrite.engine.findings.checks.registry import CODES, RECORDS
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.migrate import REASONS, Reason

README = REPO / "README.md"
FLAG_TABLE = "### Flags and exit codes next to ruff's and black's"
#: "The first screen": what a user reads before the checkout's commands.
FIRST_SCREEN_LINES = 60
#: What a user reads in their first ten minutes; the reference lives in the guide (issue 45).
README_MAX_LINES = 400
#: The README's first command, what works before jaxrewrite's first release on PyPI.
FIRST_INSTALL = "python -m pip install ."


def _section(text: str, heading: str) -> str:
    """From ``heading`` (a whole line) to the next heading of the same or a higher level."""
    lines = text.splitlines()
    assert heading in lines, f"missing heading {heading!r}"
    start = lines.index(heading)
    level = len(heading) - len(heading.lstrip("#"))
    end = next(
        (i for i in range(start + 1, len(lines)) if re.match(rf"#{{1,{level}}} ", lines[i])),
        len(lines),
    )
    return "\n".join(lines[start:end])


def test_readme_first_screen_is_for_users() -> None:
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    checkout = lines.index(CHECKOUT_HEADING)
    assert checkout < FIRST_SCREEN_LINES, f"the checkout's commands start on line {checkout + 1}"
    first_screen = "\n".join(lines[:checkout])
    blocks = [b for b in parse_blocks(README) if b.line <= checkout]
    # jaxrewrite is not on PyPI: `pip install jaxrewrite` fails, so it may not be what a user runs
    # first.
    assert blocks[0].lang == "bash" and blocks[0].code.strip() == FIRST_INSTALL, blocks[0].code
    assert any(
        b.lang == "python" and "Static" in b.code and "jaxrewrite: enable" in b.code for b in blocks
    )
    assert "pip install -e" not in first_screen and "pytest" in first_screen
    for how in (
        "python -m jaxrewrite",
        "jaxrewrite.install()",
        "%load_ext jaxrewrite",
        "ipython --ext jaxrewrite",
        "--jaxrewrite-packages",
    ):
        assert how in first_screen, f"the README's first screen does not say {how!r}"


def test_readme_is_short_and_explains_its_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES, len(text.splitlines())
    assert not re.search(r"^\| `JR\d{3}` \|", text, re.MULTILINE), (
        "the table of codes lives in the guide only"
    )
    assert "docs/errors.md#codes" in text, "the README links to the guide's table of codes"
    checkout = _section(text, CHECKOUT_HEADING)
    # The flag is explained where the command is, and the suite's time on two cores is given.
    flag = "`XLA_FLAGS=--xla_force_host_platform_device_count=4`"
    assert flag in checkout and "four devices" in checkout.split(flag, 1)[1].split("\n\n", 1)[0], (
        checkout
    )
    assert re.search(r"\d+ s measured", checkout) and "two cores" in checkout, checkout


def test_each_code_has_one_row_in_the_docs_and_it_is_in_the_guide() -> None:
    """One place per code, so branches that add or change codes merge in one file (the rows'
    wording is generated from the records: tests/rules/test_rule_modules.py)."""
    rows: dict[str, list[str]] = {}
    for doc in [README, *sorted((REPO / "docs").glob("*.md"))]:
        for code in re.findall(
            r"^\| `?(JR\d{3})`? \|", doc.read_text(encoding="utf-8"), re.MULTILINE
        ):
            rows.setdefault(code, []).append(doc.name)
    guide = {page.name for page in GUIDE_PAGES}
    assert {
        code: where for code, where in rows.items() if len(where) != 1 or where[0] not in guide
    } == {}
    assert sorted(rows) == sorted(CODES)


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_anchor_is_a_heading_of_the_page_its_link_names() -> None:
    """Each rule's section is a heading of the guide's page ``rules.PAGES`` places it on, the
    page ``check --explain`` links to."""
    wrong = {}
    for rule in RECORDS.values():
        page = REPO / "docs" / f"{rules.PAGES[rule.anchor]}.md"
        text = page.read_text(encoding="utf-8")
        if rule.anchor not in {
            _slug(line.lstrip("#")) for line in text.splitlines() if re.match(r"#{1,6} ", line)
        }:
            wrong[rule.code] = (rule.anchor, page.name)
    assert wrong == {}


def test_the_migrate_table_names_each_reason_with_its_code() -> None:
    """Each reason's row: its code (a link to the errors table for a merged one) and its name."""
    text = guide_text()
    table = re.findall(
        r"^\| (?:\[)?(JR\d{3})(?:\]\(errors\.md#9-errors\))? \| `([\w-]+)` \|", text, re.MULTILINE
    )
    rows = {reason: code for code, reason in table}
    assert rows == {reason.value: reason.rule.code for reason in Reason}
    assert all(REASONS[reason] == rules.RULES[reason.rule.code].summary for reason in Reason)


def _help(command: str, tmp_path: Path) -> str:
    done = jaxrewrite(command, "--help", cwd=tmp_path, env=child_env(COLUMNS="200", NO_COLOR="1"))
    assert done.returncode == 0, done.stderr
    return done.stdout


def _flags(help_text: str) -> list[list[str]]:
    """Each option's spellings (``['-q', '--quiet']``), from the help's option lines, less
    ``--help``."""
    options = help_text.split("options:", 1)[1]
    found = []
    for line in options.splitlines():
        m = re.match(r"^  (-[\w-]+(?: [A-Z{][^,]*)?(?:, -[\w-]+(?: [A-Z{][^,]*)?)*)", line)
        if m:
            spellings = re.findall(r"(?:^|, )(-[\w-]+)", m.group(1))
            if "--help" not in spellings:
                found.append(spellings)
    return found


def _exit_statuses(help_text: str) -> set[str]:
    block = help_text.split("exit status:", 1)[1].split("\n\n", 1)[0]
    return set(re.findall(r"(?:^|:|,|\n)\s*(\d{1,3})\s+[a-z]", block))


@pytest.mark.parametrize("command", ["check", "migrate"])
def test_the_guides_flag_table_names_every_flag_and_exit_status(
    command: str, tmp_path: Path
) -> None:
    table = _section(guide_text(), FLAG_TABLE)
    # jaxrewrite's column only: the ruff and black columns name their own flags (`--fix`...).
    ours = re.findall(r"^\| (.*?) \| .* \|$", table, re.MULTILINE)
    words = {
        word for cell in ours for code in re.findall(r"`([^`]+)`", cell) for word in code.split()
    }
    help_text = _help(command, tmp_path)
    flags = _flags(help_text)
    assert ["--exclude"] in flags and ["--config"] in flags, flags  # the help was read
    missing = [spellings for spellings in flags if not words.intersection(spellings)]
    assert not missing, f"{command} --help has flags the guide's table lacks: {missing}"
    statuses = _exit_statuses(help_text)
    assert statuses == {"0", "1", "2", "141"}, statuses
    rows = dict(re.findall(r"^\| (\d+) \| (.*) \|$", table, re.MULTILINE))
    column = {"check": 0, "migrate": 1}[command]
    for status in statuses:
        assert status in rows, f"the guide's exit table has no row {status}"
        assert rows[status].split(" | ")[column].strip() != "—", (command, status)


#: The JAX errors users meet for an argument that should be static (issue 54): each has an entry.
JAX_ERRORS = [
    "ConcretizationTypeError",
    "TracerIntegerConversionError",
    "TracerBoolConversionError",
    "not a valid JAX type",
    "Non-hashable static arguments are not supported",
]


def test_the_jax_errors_page_has_a_failing_program_and_its_fix_for_each_error() -> None:
    """Each entry: a heading naming the error, a program that raises it (docs-test: error, run by
    test_docs.py) and the fixed program with its output (docs-test: output)."""
    page = REPO / "docs" / "jax-errors.md"
    text = page.read_text(encoding="utf-8")
    entries = text.split("\n## ")[
        1:
    ]  # (not _section: "# jaxrewrite: enable" in a block is no heading)
    headings = [entry.splitlines()[0] for entry in entries]
    assert [any(error in h for h in headings) for error in JAX_ERRORS] == [True] * len(
        JAX_ERRORS
    ), headings
    for heading, section in zip(headings, entries):
        kinds = [
            b.kind for b in parse_blocks(page) if b.lang == "python" and b.code.rstrip() in section
        ]
        assert kinds == ["error", "output"], (heading, kinds)
    assert "docs/jax-errors.md" in README.read_text(encoding="utf-8")
