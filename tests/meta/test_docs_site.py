"""The documentation site: ``mkdocs build --strict`` from mkdocs.yml, then every page of its nav
opened in headless Chromium (Debian's ``chromium``), whose DOM must have the page's title, the
site navigation with every page in it, and one ``<pre><code>`` per fenced block of the page's
Markdown (so no block was lost or left as raw text).

mkdocs-material is the ``docs`` extra and Chromium a system package: without either the test
skips, except in .ci/run's docs leg, which installs both and requires them
(``JAXREWRITE_TEST_REQUIRE``), so a missing one is a failure there.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from support import REPO, missing

#: The guide's pages in the nav of mkdocs.yml (title, name), the errors page last.
GUIDE_NAV = [
    ("Getting started", "getting-started"),
    ("Static and NoDiff", "static"),
    ("Transforms and spellings", "transforms"),
    ("Per-leaf statics and fields", "leaves"),
    ("Notebooks and pytest", "notebooks-pytest"),
    ("Catching mistakes (check)", "check"),
    ("Migrating (migrate)", "migrate"),
    ("Flax, Equinox and libraries", "libraries"),
    ("Errors and codes", "errors"),
    ("JAX errors and their fixes", "jax-errors"),
]
#: The nav of mkdocs.yml: (title in the nav, Markdown source, built page).
PAGES = [
    ("Home", REPO / "README.md", "index.html"),
    *((title, REPO / "docs" / f"{name}.md", f"{name}.html") for title, name in GUIDE_NAV),
    ("Design", REPO / "docs" / "design.md", "design.html"),
    ("Contributing", REPO / "docs" / "contributing.md", "contributing.html"),
    ("Changelog", REPO / "CHANGELOG.md", "changelog.html"),
]
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    missing("chromium", "apt-get install chromium")
    raise AssertionError("unreachable")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
    except ImportError:
        missing("mkdocs-material", "pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site") / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(REPO / "mkdocs.yml"),
            "--site-dir",
            str(out),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    return out


VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


class Dom(HTMLParser):
    """What the checks read from a dumped DOM (Chromium serialises it with every end tag)."""

    def __init__(self) -> None:
        super().__init__()
        self.title = ""
        self.nav_links: list[tuple[str, str]] = []  # (href, text) of the links in the primary nav
        self.code_blocks = 0  # <code> directly inside a <pre>
        self.h1: list[str] = []
        self._open: list[tuple[str, dict[str, str], list[str]]] = []  # tag, attributes, its text

    def _inside(self, tag: str, cls: str) -> bool:
        return any(t == tag and cls in attrs.get("class", "").split() for t, attrs, _ in self._open)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        if tag == "code" and self._open and self._open[-1][0] == "pre":
            self.code_blocks += 1
        self._open.append((tag, {k: v or "" for k, v in attrs}, []))

    def handle_endtag(self, tag: str) -> None:
        where = next(
            (i for i in range(len(self._open) - 1, -1, -1) if self._open[i][0] == tag), None
        )
        if where is None:
            return
        _, attrs, parts = self._open[where]
        del self._open[where:]
        text = " ".join("".join(parts).split())
        if tag == "title":
            self.title = text
        elif tag == "h1":
            self.h1.append(text.rstrip("¶").strip())
        elif tag == "a" and self._inside("nav", "md-nav--primary"):
            self.nav_links.append((attrs.get("href", ""), text))

    def handle_data(self, data: str) -> None:
        for tag, _, parts in self._open:
            if tag in ("title", "h1", "a"):
                parts.append(data)


def _fences(markdown: Path) -> int:
    """How many fenced code blocks the Markdown has (opening fences)."""
    count, fence = 0, None
    for line in markdown.read_text(encoding="utf-8").splitlines():
        m = _FENCE.match(line)
        if fence is None and m:
            fence, count = m.group(1), count + 1
        elif (
            fence is not None
            and m
            and m.group(1)[0] == fence[0]
            and len(m.group(1)) >= len(fence)
            and line.strip() == line.strip()[0] * len(line.strip())
        ):
            fence = None
    return count


def _first_heading(markdown: Path) -> str:
    first = next(
        line for line in markdown.read_text(encoding="utf-8").splitlines() if line.startswith("# ")
    )
    return first[2:].strip()


@pytest.fixture(scope="module")
def doms(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Dom]]:
    chromium = _chromium()
    found: dict[str, Dom] = {}
    browsers: dict[str, subprocess.Popen[str]] = {}
    try:
        # One browser per page, all at once (each with its own profile: a profile is locked by
        # the browser using it): a headless Chromium spends most of its start waiting.
        for _, _, built in PAGES:
            page = site / built
            assert page.is_file(), f"mkdocs built no {built}"
            profile = tmp_path_factory.mktemp("chromium-profile")
            browsers[built] = subprocess.Popen(
                [
                    chromium,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    f"--user-data-dir={profile}",
                    "--dump-dom",
                    page.as_uri(),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        for built, browser in browsers.items():
            out, err = browser.communicate(timeout=120)
            assert browser.returncode == 0 and "<html" in out, (
                f"chromium could not open {built}:\n{err[-3000:]}"
            )
            dom = Dom()
            dom.feed(out)
            found[built] = dom
    finally:
        for browser in browsers.values():
            if browser.poll() is None:
                browser.kill()
                browser.communicate()
    yield found


@pytest.mark.parametrize("title, source, built", PAGES, ids=[built for _, _, built in PAGES])
def test_each_page_renders_with_its_title_navigation_and_code_blocks(
    doms: dict[str, Dom], title: str, source: Path, built: str
) -> None:
    dom = doms[built]
    heading = _first_heading(source)
    assert dom.title == ("jaxrewrite" if built == "index.html" else f"{title} - jaxrewrite"), (
        dom.title
    )
    assert heading in dom.h1, dom.h1
    nav = {text: href for href, text in dom.nav_links}
    for other_title, _, other_built in PAGES:
        assert other_title in nav, f"{built}: the navigation lacks {other_title!r}: {sorted(nav)}"
        href = nav[other_title]
        assert href.split("#")[0] in (
            other_built,
            f"./{other_built}",
            "." if other_built == "index.html" else other_built,
        ), (other_title, href)
    expected = _fences(source)
    assert dom.code_blocks == expected, (
        f"{built}: {dom.code_blocks} rendered code blocks, {expected} fenced in {source.name}"
    )
