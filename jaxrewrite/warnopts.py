"""``-W``/``PYTHONWARNINGS`` entries that name jaxrewrite's warnings, applied once it is
imported."""

from __future__ import annotations

import importlib
import re
import warnings

_ACTIONS = ("default", "error", "ignore", "always", "module", "once")


def apply_warning_options(options: list[str]) -> None:
    """Apply the ``-W``/``PYTHONWARNINGS`` entries whose category is one of jaxrewrite's.

    Python reads those options before site-packages are importable, so it cannot find
    ``jaxrewrite.NotRewrittenWarning`` then (it prints "Invalid -W option ignored") and drops the
    entry. Re-reading the same text with the same rules (``warnings._setoption``'s) once jaxrewrite
    is imported makes ``python -W error::jaxrewrite.NotRewrittenWarning`` mean what it says.
    """
    for option in options:
        parts = [part.strip() for part in option.split(":")]
        if len(parts) > 5 or len(parts) < 3 or not parts[2].startswith("jaxrewrite."):
            continue
        parts += [""] * (5 - len(parts))
        action, message, category_name, module, lineno = parts
        actions = [a for a in _ACTIONS if a.startswith(action or "default")]
        try:
            module_name, _, class_name = category_name.rpartition(".")
            category = getattr(importlib.import_module(module_name), class_name)
            line = int(lineno) if lineno else 0
        except (ImportError, AttributeError, ValueError):
            continue  # Python has already said the option is invalid
        if (
            len(actions) != 1
            or not (isinstance(category, type) and issubclass(category, Warning))
            or line < 0
        ):
            continue
        warnings.filterwarnings(
            actions[0],  # type: ignore[arg-type]
            re.escape(message),
            category,
            re.escape(module) + r"\Z" if module else "",
            line,
        )
