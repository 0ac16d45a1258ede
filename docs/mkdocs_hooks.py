"""mkdocs hooks (mkdocs.yml): the README and CHANGELOG.md are pages of the site without a copy.

The README is the home page and CHANGELOG.md the changelog; both live at the repository root, so
their links (``docs/guide.md#...``) and the pages' links to files outside ``docs/``
(``../examples/hypercube.ipynb``) are mapped here: a page of the site becomes its page, any other
file of the source tree becomes its path as code (there is no hosted repository to link to), and
a link to nothing is a warning, which ``mkdocs build --strict`` makes an error.
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
#: Repository files that are pages of the site, and their place in it.
FROM_REPO = {"README.md": "index.md", "CHANGELOG.md": "changelog.md"}

log = logging.getLogger("mkdocs.plugins.jaxrewrite")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_LINK = re.compile(r"(!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s#]+)(?P<anchor>#[^)\s]*)?\)")


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for source, uri in FROM_REPO.items():
        files.append(File.generated(config, uri, abs_src_path=str(REPO / source)))
    return files


def _source(src_uri: str) -> Path:
    """Where a page's Markdown lives in the repository."""
    for source, uri in FROM_REPO.items():
        if uri == src_uri:
            return REPO / source
    return DOCS / src_uri


def _site_uri(path: Path) -> str | None:
    """The page of the site that ``path`` is, if any."""
    for source, uri in FROM_REPO.items():
        if path == REPO / source:
            return uri
    if path.suffix == ".md" and path.is_relative_to(DOCS):
        return path.relative_to(DOCS).as_posix()
    return None


def _map_links(line: str, page_uri: str) -> str:
    here = _source(page_uri).parent

    def mapped(m: re.Match[str]) -> str:
        target = m.group("target")
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
            return m.group(0)  # a URL, left to mkdocs' own checks
        path = (here / target).resolve()
        if not path.exists():
            log.warning("%s: a link to %r, which does not exist", page_uri, target)
            return m.group(0)
        uri = _site_uri(path)
        if uri is not None:
            relative = posixpath.relpath(uri, posixpath.dirname(page_uri) or ".")
            return f"{m.group(1)}[{m.group('text')}]({relative}{m.group('anchor') or ''})"
        shown = path.relative_to(REPO).as_posix()
        text = m.group("text")
        return f"`{shown}`" if text.strip("`") == shown else f"{text} (`{shown}` in the source tree)"

    # A link that starts inside a code span is code (`x[...](out)`); link text may hold code.
    spans = [span.span() for span in _CODE_SPAN.finditer(line)]
    return _LINK.sub(lambda m: m.group(0) if any(a <= m.start() < b for a, b in spans) else mapped(m), line)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    lines, fence = [], None
    for line in markdown.split("\n"):
        m = _FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None and m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):].strip():
            fence = None
        elif fence is None:
            line = _map_links(line, page.file.src_uri)
        lines.append(line)
    return "\n".join(lines)
