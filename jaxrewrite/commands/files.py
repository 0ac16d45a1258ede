"""The file edge the commands share: which files a folder holds, a unified diff, an atomic write,
source text written out in its own encoding.

One walking rule for ``check``, ``migrate`` and ``compile``: every ``.py`` file below a folder,
sorted per folder, except in folders that hold no source of the project's own: hidden ones
(``.git``, ``.tox``, ``.venv``...), ``__pycache__``, ``node_modules``, and virtual environments
whatever their name (a folder with a ``pyvenv.cfg``, PEP 405's marker). A folder merely named
``venv`` is walked like any other; a path named on the command line is always taken as given.
``--exclude`` and the configuration's ``exclude`` add glob patterns, matched as ruff matches them
(``jaxrewrite.config.matches``) against each file and folder the walk meets, never against a path
named on the command line (ruff's default, without ``--force-exclude``).
"""

from __future__ import annotations

import io
import os
import tempfile
import tokenize
from collections.abc import Iterable, Iterator, Sequence
from typing import TextIO

from jaxrewrite.engine.read.source import (
    unified_diff as unified_diff,  # the commands' one diff, defined with the text
)

SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules"})


def skipped(folder: str, name: str) -> bool:
    """Is ``folder/name`` one of the folders the walk never enters?"""
    if name.startswith(".") or name in SKIPPED_FOLDERS:
        return True
    return os.path.isfile(os.path.join(folder, name, "pyvenv.cfg"))


def python_files(paths: Iterable[str], exclude: Sequence[tuple[str, str]] = ()) -> Iterator[str]:
    """Each path that is not a folder (whatever its suffix, even missing: the caller reports it),
    and every ``.py`` file below each folder, walked by the rule above; ``exclude`` holds
    ``(pattern, root)`` pairs, a relative pattern read from its ``root``."""
    from jaxrewrite.config import excluded

    for path in paths:
        if not os.path.isdir(path):
            yield path
            continue
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(
                d for d in dirs if not skipped(folder, d) and not excluded(os.path.join(folder, d), exclude)
            )
            for name in sorted(files):
                if name.endswith(".py") and not excluded(os.path.join(folder, name), exclude):
                    yield os.path.join(folder, name)


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding) as Python reads the file (PEP 263), line endings kept as they are."""
    encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    return data.decode(encoding), encoding


def write_atomically(path: str, data: bytes) -> None:
    """Replace ``path`` by ``data`` in one step: a temporary file in the same folder (so the rename
    cannot cross file systems), flushed to disk, given the file's permissions, then ``os.replace``.
    A symbolic link stays a link: the file it points to is the one replaced."""
    path = os.path.realpath(path)
    folder = os.path.dirname(path)
    mode = os.stat(path).st_mode & 0o7777
    fd, temporary = tempfile.mkstemp(prefix=".jaxrewrite-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def write_source(out: TextIO, text: str, encoding: str, *, diff: bool = False) -> None:
    """A source's text, or a diff of it, as bytes in the source's own encoding (a diff without
    a byte order mark in front): exactly the text, no newline translation, so that a patch
    applies, and no character the terminal's encoding lacks can fail the command."""
    if diff and encoding == "utf-8-sig":
        encoding = "utf-8"
    buffer = getattr(out, "buffer", None)
    if buffer is None:  # a text-only stream (in-process callers)
        out.write(text)
        return
    out.flush()
    # surrogateescape: a path from the command line that is not valid UTF-8 goes out as its bytes.
    buffer.write(text.encode(encoding, "surrogateescape"))
    buffer.flush()
