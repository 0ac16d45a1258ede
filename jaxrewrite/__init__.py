"""jaxrewrite: declare JAX static arguments in the signature, get explicit static_argnums at import.

Opt a module in with a ``# jaxrewrite: enable`` comment line in its header, annotate parameters
``Static[T]``, and install the import hook (``jaxrewrite.install()`` or ``python -m jaxrewrite``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jaxrewrite.errors import RewriteError, RewriteWarning
from jaxrewrite.hook.finder import install, uninstall
from jaxrewrite.markers import NODIFF, STATIC, NoDiff, Static, is_nodiff, is_static
from jaxrewrite.version import __version__

if TYPE_CHECKING:
    from jaxrewrite.engine.analyze import Analysis, analyze
    from jaxrewrite.engine.rewrite import rewrite_source


def __getattr__(name: str) -> Any:
    # The engine is imported on first use: a process whose opted-in modules all load from
    # the cache never needs it, and ``import jaxrewrite`` stays cheap for the marker alone.
    if name == "rewrite_source":
        from jaxrewrite.engine.rewrite import rewrite_source

        return rewrite_source
    if name in ("analyze", "Analysis"):
        from jaxrewrite.engine import analyze as module

        return getattr(module, name)
    raise AttributeError(f"module 'jaxrewrite' has no attribute {name!r}")


__all__ = [
    "Analysis",
    "NODIFF",
    "STATIC",
    "NoDiff",
    "RewriteError",
    "RewriteWarning",
    "Static",
    "__version__",
    "analyze",
    "install",
    "is_nodiff",
    "is_static",
    "rewrite_source",
    "uninstall",
]
