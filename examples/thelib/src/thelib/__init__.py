"""thelib: users only ``import thelib``; its opted-in submodules are rewritten whoever imports it.

This file itself is not rewritten: it is already running when it installs the hook, so it keeps
no Static parameters (they live in the submodules it imports below).
"""

import jaxrewrite

jaxrewrite.install(packages=[__name__])

from thelib.layers.dense import dense_stack  # noqa: E402  (after install: rewritten)
from thelib.ops import TRACES, power_sum, tile  # noqa: E402
from thelib.plain import describe  # noqa: E402

__all__ = ["TRACES", "dense_stack", "describe", "power_sum", "tile"]
