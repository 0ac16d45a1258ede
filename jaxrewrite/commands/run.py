"""Run a script or module as ``__main__`` with the import hook installed, the way ``python`` would.

The program must not tell ``python -m jaxrewrite SCRIPT`` from ``python SCRIPT`` (argv,
sys.path[0], ``__main__``, exit status, tracebacks), so the path rules mirror CPython's
``Modules/main.c`` and ``Python/pythonrun.c``; only ``os.environ`` differs (commands/children.py).
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

from jaxrewrite.commands import children, safe_path
from jaxrewrite.hook.finder import install, script_code

#: The installed hook's handle, kept for the life of the process: threads and atexit
#: handlers that import after the program's main code returns still get rewritten modules.
_hook: object = None


def run(kind: str, target: str, args: list[str], prog: str, packages: tuple[str, ...] = ()) -> int:
    """``python KIND TARGET ARGS``: ``-c`` code, ``-m`` a module, or ``--`` a script (a file, or a
    folder or zip with a ``__main__``); the code and the files are rewritten if they opt in."""
    global _hook
    # Before any lookup, so that every importer created from here on is the hook's; and in every
    # Python process the program starts.
    _hook = install(packages)
    children.export(packages)
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
        from jaxrewrite.hook.finder import compile_opted_in

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
