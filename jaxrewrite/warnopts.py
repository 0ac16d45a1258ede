"""``-W``/``PYTHONWARNINGS`` entries that name jaxrewrite's warnings, applied once it is imported.

Python reads those options before site-packages are importable, so it cannot find
``jaxrewrite.NotRewrittenWarning`` then (it prints "Invalid -W option ignored") and drops the
entry. Reading the same text again with Python's own parser (``warnings._setoption``) once
jaxrewrite is imported makes ``python -W error::jaxrewrite.NotRewrittenWarning`` mean what it says.
"""

from __future__ import annotations

import warnings


def apply_warning_options(options: list[str]) -> None:
    """Apply the ``-W``/``PYTHONWARNINGS`` entries whose category is one of jaxrewrite's."""
    for option in options:
        parts = option.split(":")
        if len(parts) >= 3 and parts[2].strip().startswith("jaxrewrite."):
            try:
                warnings._setoption(option)  # type: ignore[attr-defined]
            except Exception:
                continue  # Python has already said the option is invalid
