"""Run by ``site`` in every process the runner's program starts: install the runner's hook, then
the ``sitecustomize`` this one shadows; never fails the process.
"""

import os
import sys


def _start() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    # Out of this process's sys.path (it stays in PYTHONPATH for the next generation of children).
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != here]
    ours = sys.modules.pop("sitecustomize")
    try:
        from jaxrewrite.commands.run import start_child

        start_child()
    except Exception:  # noqa: BLE001, S110 - another Python, a broken install: run without us
        pass
    try:
        # The one this file shadows, run as site would; importlib then keeps it as sitecustomize.
        import sitecustomize  # type: ignore[import-not-found]  # noqa: F401
    except ImportError as exc:
        if exc.name != "sitecustomize":
            raise
    finally:
        sys.modules.setdefault("sitecustomize", ours)


_start()
