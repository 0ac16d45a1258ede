"""A file counter on stderr for long runs, on a terminal only: ``migrate over jax`` is not silent.

One line rewritten in place (``\\r``), shown only once a run has taken ``after`` seconds, erased
when done; nothing at all when stderr is not a terminal (a pipe, a file, CI logs), so output that
is read by programs never carries it. A few lines of our own: no dependency for a counter.
"""

from __future__ import annotations

import os
import shutil
import time
from typing import TextIO


class Progress:
    def __init__(self, stream: TextIO, total: int, after: float = 1.0, every: float = 0.1) -> None:
        isatty = getattr(stream, "isatty", None)
        self.on = bool(isatty and isatty()) and os.environ.get("TERM") != "dumb" and total > 1
        self.stream, self.total, self.after, self.every = stream, total, after, every
        self.count = 0
        self.start = time.monotonic()
        self.last = float("-inf")
        self.shown = False

    def step(self, path: str) -> None:
        """``path`` is next: redraw at most every ``every`` seconds, once ``after`` has passed."""
        self.count += 1
        if not self.on:
            return
        now = time.monotonic()
        if now - self.start < self.after or now - self.last < self.every:
            return
        self.last = now
        width = shutil.get_terminal_size((80, 20)).columns
        line = f"migrate: {self.count}/{self.total} files  {os.path.normpath(path)}"
        self.stream.write("\r" + line[: width - 1].ljust(width - 1))
        self.stream.flush()
        self.shown = True

    def writer(self) -> TextIO:
        """The stream for messages while the counter runs: each write erases the counter first."""
        return _Erasing(self) if self.on else self.stream  # type: ignore[return-value]

    def done(self) -> None:
        """Erase the line, so what follows starts on a clean line."""
        if self.shown:
            width = shutil.get_terminal_size((80, 20)).columns
            self.stream.write("\r" + " " * (width - 1) + "\r")
            self.stream.flush()
            self.shown = False


class _Erasing:
    """Just enough of a text stream for ``print``: the counter's line goes before the text does."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress

    def write(self, text: str) -> int:
        self.progress.done()
        return self.progress.stream.write(text)

    def flush(self) -> None:
        self.progress.stream.flush()
