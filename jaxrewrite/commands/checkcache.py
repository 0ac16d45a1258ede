"""``check``'s cache (ruff's ``.ruff_cache``): an entry per file keyed by version, engine, Python,
options, path and bytes, served only while every module the analysis followed still resolves to
the same bytes (docs/design.md, "check's cache").
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from typing import Any

from jaxrewrite.commands.files import write_atomically
from jaxrewrite.commands.targets import Read, digest, import_reader
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import docs_base
from jaxrewrite.hook import cachetag
from jaxrewrite.version import __version__

FOLDER = ".jaxrewrite_cache"
#: The Cache Directory Tagging Specification's signature (https://bford.info/cachedir/).
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by jaxrewrite.\n"
    "# For information about cache directory tags, see:\n"
    "#\thttps://bford.info/cachedir/\n"
)
GITIGNORE = "# Automatically created by jaxrewrite.\n*\n"


class Cache:
    """One run's view of the cache folder; picklable (strings only), for the worker processes."""

    def __init__(self, folder: str, settings: Any) -> None:
        """The cache in ``folder`` for a run with ``settings`` (any value with a stable repr)."""
        try:
            engine: str | None = cachetag.rewriter_hash()
        except OSError:  # jaxrewrite's sources unreadable: the version alone
            engine = None
        self.folder = folder
        # What every key of this run shares; the docs' base URL is in the messages' links.
        said = (__version__, engine, sys.version, settings, docs_base())
        self.fingerprint = digest(repr(said).encode())

    def _entry(self, path: str, data: bytes) -> str:
        # The path as given too: the findings name the file as the command line did.
        key = digest(
            f"{self.fingerprint}\0{os.path.abspath(path)}\0{path}\0{digest(data)}".encode()
        )
        return os.path.join(self.folder, __version__, key[:2], key[2:])

    def get(self, path: str, data: bytes) -> list[Diagnostic] | None:
        """The findings stored for these bytes, while every module read reads the same again."""
        try:
            with open(self._entry(path, data), encoding="utf-8") as file:
                entry = json.load(file)
            reads: list[Read] = []
            read = import_reader(path, reads)
            for module, level, _, _ in entry["reads"]:
                read(module, level)
            if [list(now) for now in reads] != entry["reads"]:
                return None
            return [Diagnostic(**row) for row in entry["findings"]]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, path: str, data: bytes, findings: list[Diagnostic], reads: list[Read]) -> None:
        """Store the findings; a cache that cannot be written is no error (the run goes on)."""
        entry = json.dumps(
            {"findings": [{**asdict(d), "about": None} for d in findings], "reads": reads}
        )
        target = self._entry(path, data)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            tag = os.path.join(self.folder, "CACHEDIR.TAG")
            if not os.path.exists(tag):
                write_atomically(tag, CACHEDIR_TAG.encode(), durable=False)
                write_atomically(os.path.join(self.folder, ".gitignore"), GITIGNORE.encode(), False)
            write_atomically(target, entry.encode(), durable=False)
        except OSError:
            pass
