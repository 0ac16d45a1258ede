"""The Markdown reader of tests/meta/test_docs.py (its conventions are in that file's docstring):
the fenced blocks of README.md and docs/*.md with their ``docs-test`` directives, as cases to run.
Shared with test_docs_content.py, test_packaging.py and test_precommit.py, which read the same
blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DOCS = [README, *sorted((REPO / "docs").glob("*.md"))]
PYTHON_LANGS = {"python", "py", "python3"}
#: The user guide's pages, in the site's order (mkdocs.yml): the guide was one page until issue 54.
GUIDE_PAGES = [
    REPO / "docs" / f"{name}.md"
    for name in (
        "getting-started",
        "static",
        "transforms",
        "leaves",
        "notebooks-pytest",
        "check",
        "migrate",
        "libraries",
        "errors",
    )
]


def guide_text() -> str:
    """The guide's pages, one after another, as the one text the guide was."""
    return "\n".join(page.read_text(encoding="utf-8") for page in GUIDE_PAGES)


_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*?)[ \t]*$")
_DIRECTIVE = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<kind>[\w-]+)\s*(?P<arg>.*?)\s*-->\s*$")
_ANY_DIRECTIVE = re.compile(r"<!--\s*docs-test\b")
_KINDS = {"skip", "output", "show", "error", "example"}


@dataclass
class Block:
    doc: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    kind: str | None = None  # the docs-test directive right before it
    arg: str = ""
    directive_line: int | None = None

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(REPO)}:{self.line}"


@dataclass
class Case:
    block: Block
    mode: str  # run | plain | skip | bad | example
    expect_stdout: str | None = None
    expect_show: str | None = None
    expect_stderr_lines: list[str] = field(default_factory=list)
    problem: str = ""


def parse_blocks(doc: Path) -> list[Block]:
    lines = doc.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        indent, fence, info = m.group("indent"), m.group("fence"), m.group("info")
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines):
            close = _FENCE.match(lines[i])
            if (
                close
                and close.group("fence")[0] == fence[0]
                and len(close.group("fence")) >= len(fence)
                and not close.group("info")
            ):
                break
            body.append(
                lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i].lstrip()
            )
            i += 1
        else:
            raise AssertionError(f"{doc}:{start + 1}: unclosed code fence")
        block = Block(doc, start + 1, (info.split() or [""])[0].lower(), "\n".join(body) + "\n")
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0 and _ANY_DIRECTIVE.search(lines[j]):
            d = _DIRECTIVE.match(lines[j])
            block.kind = d.group("kind") if d else "<unparsable>"
            block.arg = d.group("arg") if d else lines[j].strip()
            block.directive_line = j + 1
        blocks.append(block)
        i += 1
    return blocks


def _next(blocks: list[Block], index: int, lang: str | set[str]) -> Block | None:
    langs = {lang} if isinstance(lang, str) else lang
    if index + 1 < len(blocks) and blocks[index + 1].lang in langs:
        return blocks[index + 1]
    return None


def build_cases(doc: Path) -> list[Case]:
    blocks = parse_blocks(doc)
    cases: list[Case] = []
    consumed: dict[int, str] = {}  # id(block) -> the role a directive gave it
    for index, block in enumerate(blocks):
        role = consumed.get(id(block))
        if block.kind is not None and block.kind not in _KINDS:
            cases.append(
                Case(
                    block,
                    "bad",
                    problem=(
                        f"unknown directive {block.arg or block.kind!r} on line "
                        f"{block.directive_line}"
                    ),
                )
            )
            continue
        if block.lang not in PYTHON_LANGS:
            if block.kind == "example":
                if doc != README:
                    cases.append(
                        Case(block, "bad", problem="docs-test: example is only for the README")
                    )
                else:
                    cases.append(Case(block, "example", expect_stdout=block.code))
            elif block.kind is not None:
                cases.append(
                    Case(
                        block, "bad", problem=f"docs-test: {block.kind} must precede a python block"
                    )
                )
            continue  # other languages (bash, text) are not run
        if role == "show-expected":
            if block.kind is not None:
                cases.append(
                    Case(
                        block,
                        "bad",
                        problem="the expected output of a show block takes no directive",
                    )
                )
            else:
                cases.append(Case(block, "plain"))
            continue
        if block.kind == "skip":
            if not block.arg:
                cases.append(Case(block, "bad", problem="docs-test: skip needs a reason"))
            else:
                cases.append(Case(block, "skip", problem=block.arg))
            continue
        if block.kind == "example":
            cases.append(Case(block, "bad", problem="docs-test: example precedes a text block"))
            continue
        case = Case(block, "run")
        if block.kind in ("output", "error"):
            partner = _next(blocks, index, "text")
            if partner is None:
                cases.append(
                    Case(
                        block,
                        "bad",
                        problem=f"docs-test: {block.kind} needs a ```text block right after",
                    )
                )
                continue
            consumed[id(partner)] = block.kind
            if block.kind == "output":
                case.expect_stdout = partner.code
            else:
                case.mode = "error"
                case.expect_stderr_lines = [
                    ln.strip() for ln in partner.code.splitlines() if ln.strip()
                ]
        elif block.kind == "show":
            partner = _next(blocks, index, PYTHON_LANGS)
            if partner is None:
                cases.append(
                    Case(
                        block, "bad", problem="docs-test: show needs a ```python block right after"
                    )
                )
                continue
            consumed[id(partner)] = "show-expected"
            case.expect_show = partner.code
        cases.append(case)
    return cases


#: The README's heading before its two commands for a checkout.
CHECKOUT_HEADING = "## From a checkout"
