"""The commands, one module each (``run``, ``show``, ``check``, ``migrate``, ``compile``), none
importing another (``tests/meta/test_layers.py``): what two share lives in their edge modules
(``targets``, ``files``...) or here, where it costs the warm runner no module of its own."""

from __future__ import annotations

import sys


def safe_path() -> bool:
    """No script/cwd entry at ``sys.path[0]`` (``-P``, ``-I``, PYTHONSAFEPATH)?"""
    return bool(getattr(sys.flags, "safe_path", False) or sys.flags.isolated)
