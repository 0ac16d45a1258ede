"""Colour for the commands' terminal output, decided as CPython and ruff decide it: ``NO_COLOR``
off, else ``FORCE_COLOR`` on, else on a terminal whose ``TERM`` is not ``dumb``.
"""

from __future__ import annotations

import os
from typing import TextIO

#: SGR codes by name: the few the commands use (ruff's palette: bold paths, cyan separators,
#: bold red codes, green for a clean result).
CODES = {"bold": "1", "green": "32", "cyan": "36", "bold red": "1;31"}


def wanted(stream: TextIO) -> bool:
    """Should text written to ``stream`` be coloured?"""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def paint(text: str, style: str, on: bool = True) -> str:
    """``text`` in ``style`` (a key of ``CODES``) when ``on``, else unchanged."""
    return f"\033[{CODES[style]}m{text}\033[0m" if on else text
