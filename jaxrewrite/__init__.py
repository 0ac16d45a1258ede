"""jaxrewrite: declare JAX static arguments in the signature, get explicit static_argnums at import.

Opt a module in with a ``# jaxrewrite: enable`` comment line in its header, annotate parameters
``Static[T]``, and install the import hook (``jaxrewrite.install()`` or ``python -m jaxrewrite``).
"""

from __future__ import annotations

from jaxrewrite.errors import RewriteError, RewriteWarning
from jaxrewrite.importhook import install, uninstall
from jaxrewrite.markers import NODIFF, STATIC, NoDiff, Static, is_nodiff, is_static
from jaxrewrite.rewrite import rewrite_source
from jaxrewrite.version import __version__

__all__ = [
    "NODIFF",
    "STATIC",
    "NoDiff",
    "RewriteError",
    "RewriteWarning",
    "Static",
    "__version__",
    "install",
    "is_nodiff",
    "is_static",
    "rewrite_source",
    "uninstall",
]
