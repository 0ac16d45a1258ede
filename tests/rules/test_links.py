"""Where a finding sends its reader: every link of a rule's record (its section, the links in its
messages, ``{see[ANCHOR]}``) is a page and anchor of the built docs site, and the base of the links
is the one setting (``rules.DOCS_URL``, or JAXREWRITE_DOCS_URL)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import REPO, missing

from jaxrewrite.engine.findings.checks.registry import RECORDS
from jaxrewrite.engine.rulebook import rules


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
    except ImportError:
        missing("mkdocs-material", "pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site") / "site"
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return out


def test_every_link_of_every_rule_is_a_page_and_anchor_of_the_built_site(site: Path) -> None:
    templates = [(r.anchor, t) for r in RECORDS.values() for t in (r.message, *r.variants.values())]
    anchors = {a for anchor, t in templates for a in (anchor, *re.findall(r"\{see\[([\w-]+)\]", t))}
    links = {(rules.PAGES[a], a) for a in anchors}
    assert len({a for _, a in links}) >= 8  # the sections, and the messages' links
    wrong = []
    for page, anchor in sorted(links):
        html = site / f"{page}.html"
        if not html.is_file() or f'id="{anchor}"' not in html.read_text(encoding="utf-8"):
            wrong.append(f"{page}.html#{anchor}")
    assert wrong == []


def test_no_message_names_a_guide_section_by_number() -> None:
    """The guide is pages now: a message links to one (``{see[...]}``), never 'section N'."""
    said = [t for r in RECORDS.values() for t in (r.message, *r.variants.values(), r.details)]
    assert [t for t in said if re.search(r"the guide|section \d", t) and "](" not in t] == []


def test_a_message_links_to_the_configured_site(tmp_path: Path) -> None:
    """With JAXREWRITE_DOCS_URL set, a finding's link is the site's page; without, the page's
    Markdown file in the source tree."""
    (tmp_path / "m.py").write_text(
        "# jaxrewrite: enable\nfrom jaxrewrite import Static\n\n\n@my_jit\n"
        "def f(x, n: Static[int]):\n    return x\n",
        encoding="utf-8",
    )
    env = {**os.environ, "JAXREWRITE_DOCS_URL": "https://docs.example.org/jaxrewrite/"}
    command = [sys.executable, "-m", "jaxrewrite", "check", "--no-cache", "m.py"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    site = "https://docs.example.org/jaxrewrite/transforms.html#6-which-transforms-which-spellings"
    assert "JR004" in done.stdout and f"(see {site})" in done.stdout, done.stdout + done.stderr
    env.pop("JAXREWRITE_DOCS_URL")
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert "(see docs/transforms.md#6-which-transforms-which-spellings)" in done.stdout
