"""The commands, one module each, none importing another (``tests/meta/test_layers.py``)."""

from __future__ import annotations

import sys


def safe_path() -> bool:
    """No script/cwd entry at ``sys.path[0]`` (``-P``, ``-I``, PYTHONSAFEPATH)?"""
    return bool(getattr(sys.flags, "safe_path", False) or sys.flags.isolated)
