"""The runner's hook in the Python processes the program starts: it sets ``JAXREWRITE_RUNNER`` and
puts ``childsite/`` first on ``PYTHONPATH``, whose ``sitecustomize`` installs the hook there.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable, Sequence

from jaxrewrite import notrewritten

#: The folder whose ``sitecustomize`` a child runs.
SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "childsite")

#: The command lines (``python -c CODE``) that multiprocessing starts its children with.
_MULTIPROCESSING = (
    "from multiprocessing.spawn import spawn_main",
    "from multiprocessing.forkserver import main",
)


def export(packages: Sequence[str]) -> None:
    """In the runner, before the program runs: what its children inherit."""
    os.environ[notrewritten.RUNNER_ENV] = ",".join(packages) or "*"  # "*": every module
    path = os.environ.get("PYTHONPATH", "")
    entries = path.split(os.pathsep) if path else []
    if SITE not in entries:
        os.environ["PYTHONPATH"] = os.pathsep.join([SITE, *entries])


def start_child() -> None:
    """In a child's ``sitecustomize``: install the hook the runner asked for."""
    value = os.environ.get(notrewritten.RUNNER_ENV)
    if not value:
        return
    from jaxrewrite.hook.finder import install

    install([name for name in value.split(",") if name and name != "*"])
    notrewritten.runner_child = True
    if any(any(line in arg for line in _MULTIPROCESSING) for arg in getattr(sys, "orig_argv", ())):
        _rewrite_mp_main()


def _rewrite_mp_main() -> None:
    """Make multiprocessing run an opted-in main script rewritten, as the runner ran it."""
    from multiprocessing import spawn

    original: Callable[[str], None] = spawn._fixup_main_from_path  # type: ignore[attr-defined]
    run_module_code = getattr(__import__("runpy"), "_run_module_code", None)
    if run_module_code is None or getattr(original, "__wrapped__", None) is not None:
        return

    def _fixup_main_from_path(main_path: str) -> None:
        current = sys.modules["__main__"]
        data = _opted_in(main_path)
        if data is None or getattr(current, "__file__", None) == main_path:
            original(main_path)  # a script that does not opt in, or main already set (fork)
            return
        from jaxrewrite.hook.finder import script_code

        # What spawn's own version does, with runpy.run_path's compile replaced by the runner's.
        spawn.old_main_modules.append(current)
        main = types.ModuleType("__mp_main__")
        main.__dict__.update(
            run_module_code(
                script_code(data, main_path),
                None,
                "__mp_main__",
                pkg_name="",
                script_name=main_path,
            )
        )
        sys.modules["__main__"] = sys.modules["__mp_main__"] = main

    _fixup_main_from_path.__wrapped__ = original  # type: ignore[attr-defined]
    spawn._fixup_main_from_path = _fixup_main_from_path  # type: ignore[attr-defined]


def _opted_in(path: str) -> bytes | None:
    """The bytes of the script at ``path`` if it is a file that may opt in, else None."""
    from jaxrewrite.header import NEEDLE

    if not path.endswith(".py") or os.path.splitext(os.path.basename(path))[0] == "ipython":
        return None
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return None
    return data if NEEDLE in data else None
