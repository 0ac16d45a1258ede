"""jaxrewrite: declare JAX static arguments in the signature, get explicit static_argnums at import.

Opt a module in with a ``# jaxrewrite: enable`` comment line in its header, annotate parameters
``Static[T]``, and install the import hook (``jaxrewrite.install()`` or ``python -m jaxrewrite``).

PYTEST_DONT_REWRITE: pytest marks a plugin's package for assertion rewriting; jaxrewrite has
no asserts to show, and is often imported before pytest could rewrite it (a warning then).
"""

from __future__ import annotations

import importlib as _importlib
import sys as _sys
from typing import TYPE_CHECKING, Any

from jaxrewrite import markers as _markers
from jaxrewrite.errors import NotRewrittenWarning, RewriteError, RewriteWarning
from jaxrewrite.header import scan_header
from jaxrewrite.hook.finder import install, uninstall
from jaxrewrite.markers import field, is_nodiff, is_static
from jaxrewrite.version import __version__

if TYPE_CHECKING:
    from jaxrewrite.engine.analysis import Analysis
    from jaxrewrite.engine.findings import analyze
    from jaxrewrite.engine.rewrite import rewrite_source
    from jaxrewrite.markers import NODIFF, STATIC, NoDiff, Static

if _sys.warnoptions:  # -W/PYTHONWARNINGS naming jaxrewrite's warnings: see apply_warning_options
    from jaxrewrite.warnopts import apply_warning_options as _apply

    _apply(_sys.warnoptions)


#: Names served from their module on first use: a process whose opted-in modules all load from
#: the cache never needs the engine, and ``import jaxrewrite`` never pays for IPython's extension
#: (``%load_ext jaxrewrite`` asks for its two functions here).
_LAZY = {
    "rewrite_source": "jaxrewrite.engine.rewrite",
    "analyze": "jaxrewrite.engine.findings",
    "Analysis": "jaxrewrite.engine.analysis",
    "load_ipython_extension": "jaxrewrite.integrations.ipython",
    "unload_ipython_extension": "jaxrewrite.integrations.ipython",
}


def __getattr__(name: str) -> Any:
    __tracebackhide__ = True  # noqa: F841
    if name in _markers.UNCHECKED:  # served as markers.py serves them: the fetcher is told apart
        return _markers.__getattr__(name)
    if name in _LAZY:
        return getattr(_importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'jaxrewrite' has no attribute {name!r}")


__all__ = [
    "Analysis",
    "NODIFF",
    "NotRewrittenWarning",
    "STATIC",
    "NoDiff",
    "RewriteError",
    "RewriteWarning",
    "Static",
    "__version__",
    "analyze",
    "field",
    "install",
    "is_nodiff",
    "is_static",
    "rewrite_source",
    "scan_header",
    "uninstall",
]
