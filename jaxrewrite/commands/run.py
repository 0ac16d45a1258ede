"""Run a script or module as ``__main__`` with the import hook installed, the way ``python`` would,
and the hook in the Python processes it starts (docs/design.md, "The runner's children").

The program must not tell ``python -m jaxrewrite SCRIPT`` from ``python SCRIPT`` (argv,
sys.path[0], ``__main__``, exit status, tracebacks), so the path rules mirror CPython's
``Modules/main.c`` and ``Python/pythonrun.c``; only ``os.environ`` differs: it sets
``JAXREWRITE_RUNNER`` and puts ``childsite/`` first on ``PYTHONPATH``.
"""

from __future__ import annotations

import builtins
import importlib.machinery
import importlib.util
import marshal
import os
import pkgutil
import runpy
import sys
import types
from collections.abc import Callable

from jaxrewrite import notrewritten
from jaxrewrite.commands import safe_path
from jaxrewrite.hook.finder import compile_opted_in, install, script_code

#: The installed hook's handle, kept for the life of the process: threads and atexit
#: handlers that import after the program's main code returns still get rewritten modules.
_hook: object = None

#: The folder whose ``sitecustomize`` (which calls ``start_child``) the program's children run.
SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "childsite")

#: The command lines (``python -c CODE``) that multiprocessing starts its children with.
_MULTIPROCESSING = (
    "from multiprocessing.spawn import spawn_main",
    "from multiprocessing.forkserver import main",
)


def run(kind: str, target: str, args: list[str], prog: str, packages: tuple[str, ...] = ()) -> int:
    """``python KIND TARGET ARGS``: ``-c`` code, ``-m`` a module, or ``--`` a script (a file, or a
    folder or zip with a ``__main__``); the code and the files are rewritten if they opt in."""
    global _hook
    # Before any lookup, so that every importer created from here on is the hook's; and in every
    # Python process the program starts.
    _hook = install(packages)
    os.environ[notrewritten.RUNNER_ENV] = ",".join(packages) or "*"  # "*": every module
    path = os.environ.get("PYTHONPATH", "")
    entries = path.split(os.pathsep) if path else []
    if SITE not in entries:
        os.environ["PYTHONPATH"] = os.pathsep.join([SITE, *entries])
    sys.argv = [target if kind == "--" else kind, *args]  # runpy replaces -m with the file
    # A fresh __main__ like the interpreter's own, so user code never runs in our globals.
    main = sys.modules["__main__"] = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    if sys.version_info < (3, 14):
        # The interpreter's __main__ starts with an empty __annotations__ before 3.14; from 3.14
        # (PEP 649) it has none, and a dict here would hide the lazily built module annotations.
        main.__dict__["__annotations__"] = {}
    # __file__: CPython joins it to the cwd without normalizing (``_Py_abspath``).
    cwd = os.getcwd()
    filename = cwd if target in ("", ".") else os.path.join(cwd, target)
    if kind == "-c":
        if not safe_path():
            sys.path[:1] = [""]
        main.__dict__["__loader__"] = importlib.machinery.BuiltinImporter
        try:
            code = compile_opted_in(target.encode("utf-8"), "<string>", optimize=sys.flags.optimize)
        except SyntaxError as exc:
            return _report(exc.with_traceback(None))
        return _run(lambda: exec(code, main.__dict__))
    if kind == "-m" or pkgutil.get_importer(filename) is not None:
        # runpy finds and imports the module, or the __main__ of a folder or zip file, through
        # the hook's import system. In place of ``sys.path[0]`` (the entry Python put there for
        # ``python -m jaxrewrite`` or the console script): the cwd, or the folder or zip file.
        if kind == "--":
            sys.path[: 0 if safe_path() else 1] = [filename]
        elif not safe_path():
            sys.path[:1] = [cwd]
        # On a lookup failure it exits with "python: No module named NAME" exactly like -m.
        name = target if kind == "-m" else "__main__"
        return _run(lambda: runpy._run_module_as_main(name, kind == "-m"))  # type: ignore[attr-defined]
    try:
        with open(filename, "rb") as file:
            data = file.read()
    except OSError as exc:
        print(
            f"{prog}: can't open file {filename!r}: [Errno {exc.errno}] {exc.strerror}",
            file=sys.stderr,
        )
        return 2
    if not safe_path():
        sys.path[:1] = [os.path.dirname(os.path.realpath(filename))]  # symlinks resolved
    is_pyc = filename.endswith(".pyc") or data[:2] == importlib.util.MAGIC_NUMBER[:2]
    loader_type = (
        importlib.machinery.SourcelessFileLoader if is_pyc else importlib.machinery.SourceFileLoader
    )
    main.__dict__.update(
        __file__=filename, __cached__=None, __loader__=loader_type("__main__", filename)
    )
    try:
        if not is_pyc:
            code = script_code(data, filename)
        elif data[:4] != importlib.util.MAGIC_NUMBER:
            raise RuntimeError("Bad magic number in .pyc file")
        elif not isinstance(code := marshal.loads(memoryview(data)[16:]), types.CodeType):
            raise RuntimeError("Bad code object in .pyc file")
    except (SyntaxError, RuntimeError, ValueError, EOFError) as exc:
        if not (is_pyc or isinstance(exc, SyntaxError)):
            raise  # a failure of the engine itself: keep every frame
        # Python shows a script that does not compile (so a RewriteError too) without frames.
        status = _report(exc.with_traceback(None))
    else:
        status = _run(lambda: exec(code, main.__dict__))
    # pythonrun.c removes these once the script has run or its exception was printed.
    main.__dict__.pop("__file__", None)
    main.__dict__.pop("__cached__", None)
    return status


def _run(body: Callable[[], object]) -> int:
    """Call ``body`` (which runs user code); an uncaught exception is reported as Python would."""
    try:
        body()
    except SystemExit:
        raise  # the interpreter turns it into the exit status (and prints a non-int code)
    except KeyboardInterrupt as exc:
        _report(_trimmed(exc))
        # The interpreter sees the interrupt (it then exits by SIGINT) without printing it again.
        sys.excepthook = lambda *_: None
        raise
    except BaseException as exc:  # noqa: B036 - anything else uncaught exits 1 after a traceback
        return _report(_trimmed(exc))
    return 0


def _trimmed(exc: BaseException) -> BaseException:
    """Drop this module's leading frames so the traceback starts where Python's would."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_globals is globals():
        tb = tb.tb_next
    return exc.with_traceback(tb)


def _report(exc: BaseException) -> int:
    """Print an uncaught exception through ``sys.excepthook`` as ``PyErr_Print`` does; returns 1."""
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, exc.__traceback__
    if sys.version_info >= (3, 12):
        setattr(sys, "last_exc", exc)  # noqa: B010 - absent from 3.10's stubs
    try:
        sys.excepthook(type(exc), exc, exc.__traceback__)
    except SystemExit:
        raise
    except BaseException as hook_exc:  # noqa: B036
        # Python calls the hook outside any handler: no chaining, no frame of the caller.
        hook_exc.__suppress_context__ = True
        print("Error in sys.excepthook:", file=sys.stderr)
        sys.__excepthook__(type(hook_exc), hook_exc, _trimmed(hook_exc).__traceback__)
        print("\nOriginal exception was:", file=sys.stderr)
        sys.__excepthook__(type(exc), exc, exc.__traceback__)
    return 1


def start_child() -> None:
    """In a child's ``sitecustomize``: install the hook the runner asked for."""
    value = os.environ.get(notrewritten.RUNNER_ENV)
    if not value:
        return
    install([name for name in value.split(",") if name and name != "*"])
    notrewritten.runner_child = True
    if any(any(line in arg for line in _MULTIPROCESSING) for arg in getattr(sys, "orig_argv", ())):
        _rewrite_mp_main()


def _rewrite_mp_main() -> None:
    """Make multiprocessing run an opted-in main script rewritten, as the runner ran it."""
    from multiprocessing import spawn

    from jaxrewrite.header import NEEDLE

    original: Callable[[str], None] = spawn._fixup_main_from_path  # type: ignore[attr-defined]
    run_module_code = getattr(runpy, "_run_module_code", None)
    if run_module_code is None or getattr(original, "__wrapped__", None) is not None:
        return

    def _fixup_main_from_path(main_path: str) -> None:
        current = sys.modules["__main__"]
        data = None
        name = os.path.splitext(os.path.basename(main_path))[0]
        # main is already set after a fork; IPython's own script is not the user's.
        if (
            main_path.endswith(".py")
            and name != "ipython"
            and getattr(current, "__file__", None) != main_path
        ):
            try:
                with open(main_path, "rb") as file:
                    data = file.read()
            except OSError:
                pass
        if data is None or NEEDLE not in data:
            original(main_path)
            return
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
