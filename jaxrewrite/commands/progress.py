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

#: Seconds between two redraws.
EVERY = 0.1


class Progress:
    def __init__(self, stream: TextIO, total: int, after: float = 1.0) -> None:
        isatty = getattr(stream, "isatty", None)
        self.on = bool(isatty and isatty()) and os.environ.get("TERM") != "dumb" and total > 1
        self.stream, self.total, self.after = stream, total, after
        self.count = 0
        self.start = time.monotonic()
        self.last = float("-inf")
        self.shown = False

    def step(self, path: str) -> None:
        """``path`` is next: redraw at most every ``EVERY`` seconds, once ``after`` has passed."""
        self.count += 1
        now = time.monotonic()
        if not self.on or now - self.start < self.after or now - self.last < EVERY:
            return
        self.last = now
        width = shutil.get_terminal_size((80, 20)).columns
        line = f"migrate: {self.count}/{self.total} files  {os.path.normpath(path)}"
        self.stream.write("\r" + line[: width - 1].ljust(width - 1))
        self.stream.flush()
        self.shown = True

    def write(self, text: str) -> int:
        """For ``print`` while the counter runs: the counter's line goes before the text does."""
        self.done()
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def done(self) -> None:
        """Erase the line, so what follows starts on a clean line."""
        if self.shown:
            width = shutil.get_terminal_size((80, 20)).columns
            self.stream.write("\r" + " " * (width - 1) + "\r")
            self.stream.flush()
            self.shown = False
