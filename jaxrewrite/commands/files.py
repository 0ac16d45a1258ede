"""The file edge the commands share: one folder walk (hidden folders, ``__pycache__``,
``node_modules`` and virtual environments skipped; ``--exclude`` globs as ruff's), decoding as
Python does, an atomic write, and source text written out in its own encoding.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
import tokenize
from collections.abc import Iterable, Iterator, Sequence
from typing import TextIO

from jaxrewrite.engine.read.source import (
    unified_diff as unified_diff,  # the commands' one diff, defined with the text
)


def python_files(paths: Iterable[str], exclude: Sequence[tuple[str, str]] = ()) -> Iterator[str]:
    """Each non-folder path as given (the caller reports a missing one), and every
    ``.py`` file below each folder; ``exclude``: ``(pattern, root)`` pairs."""
    from jaxrewrite.config import matches

    def excluded(path: str) -> bool:
        return any(matches(pattern, path, root) for pattern, root in exclude)

    def skipped(folder: str) -> bool:  # hidden, caches, virtual environments
        name = os.path.basename(folder)
        hidden = name.startswith(".") or name in ("__pycache__", "node_modules")
        return hidden or excluded(folder) or os.path.isfile(os.path.join(folder, "pyvenv.cfg"))

    for path in paths:
        if not os.path.isdir(path):
            yield path
            continue
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not skipped(os.path.join(folder, d)))
            for name in sorted(files):
                if name.endswith(".py") and not excluded(os.path.join(folder, name)):
                    yield os.path.join(folder, name)


class SourceError(ValueError):
    """Bytes that are no Python source, located in the same words by every command."""

    def __init__(self, path: str, data: bytes, at: int, why: str) -> None:
        self.line = data.count(b"\n", 0, at) + 1
        self.column = at - (data.rfind(b"\n", 0, at) + 1) + 1
        #: The message after the file's name, as ``compile``'s report line writes it.
        self.located = f":{self.line}:{self.column}: cannot read it as Python source: {why}"
        super().__init__(path + self.located)


def decode(data: bytes, path: str = "<unknown>") -> tuple[str, str]:
    """(text, encoding) as Python reads the file (PEP 263); SourceError where it cannot."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise SourceError(path, data, nul, "it holds a NUL byte (a binary file?)")
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError as exc:  # an unknown encoding, a BOM with another one, bad bytes in line 1-2
        head = b"".join(io.BytesIO(data).readlines()[:2])
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as bad:
            raise _undecodable(path, data, bad, "utf-8") from None
        cookie = next((m.start() for m in re.finditer(rb"coding[:=]", head)), 0)
        raise SourceError(path, data, data.rfind(b"\n", 0, cookie) + 1, str(exc.msg)) from None
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as exc:
        raise _undecodable(path, data, exc, encoding) from None


def _undecodable(path: str, data: bytes, exc: UnicodeDecodeError, encoding: str) -> SourceError:
    return SourceError(
        path, data, exc.start, f"byte {data[exc.start]:#04x} is not {encoding}: {exc.reason}"
    )


def universal(text: str) -> str:
    """The text with its line endings as ``importlib.util.decode_source`` gives them (``\\n``)."""
    return (
        io.IncrementalNewlineDecoder(None, True).decode(text, final=True) if "\r" in text else text
    )


def read_python(path: str) -> tuple[str, str]:
    with open(path, "rb") as file:
        return decode(file.read(), path)


def cannot_open(path: str, exc: OSError | SourceError) -> str:
    """Why a path could not be read as Python source, the same words in every command."""
    if isinstance(exc, SourceError):
        return str(exc)
    if isinstance(exc, FileNotFoundError):
        return f"{path}: no such file or folder"
    if isinstance(exc, IsADirectoryError):
        return f"{path}: is a folder, not a Python file"
    return f"{path}: cannot read it: {exc.strerror or exc}"


def write_atomically(path: str, data: bytes, durable: bool = True) -> None:
    """Replace ``path`` by ``data`` in one rename (a link stays a link); ``durable``
    (a user's existing file): flushed to disk and given its permissions first."""
    path = os.path.realpath(path)
    mode = os.stat(path).st_mode & 0o7777 if durable else None
    folder = os.path.dirname(path)
    fd, temporary = tempfile.mkstemp(prefix=".jaxrewrite-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            if mode is not None:
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
    """Text as bytes in the source's own encoding (no BOM on a diff), untranslated,
    so a patch applies and no terminal encoding can fail the command."""
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


def terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def coloured(stream: TextIO) -> bool:
    """Colour as CPython and ruff decide it: ``NO_COLOR`` off, else ``FORCE_COLOR`` on, else on a
    terminal (https://no-color.org); machine formats are never coloured."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or terminal(stream)


#: SGR codes of ruff's palette: bold paths, cyan separators, bold red codes, green when clean.
SGR = {"bold": "1", "green": "32", "cyan": "36", "bold red": "1;31"}


def paint(text: str, style: str, on: bool = True) -> str:
    return f"\033[{SGR[style]}m{text}\033[0m" if on else text
