"""NotRewrittenWarning: a module that uses Static/NoDiff where the rewrite would act, but that
runs without having been rewritten, says so once, when it first fetches a marker from jaxrewrite:
that runs in the very module that needs the rewrite, so its globals name its file, and a module
that fetches no marker (JAX, every other library) runs none of this.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import warnings
from types import FrameType

from jaxrewrite.errors import NotRewrittenWarning

#: The variable the runner (``python -m jaxrewrite``) sets for the processes its program starts
#: (jaxrewrite/commands/run.py).
RUNNER_ENV = "JAXREWRITE_RUNNER"


#: Files whose code came from the rewriting pipeline: added by whoever runs the code (the hook's
#: loader, the runner), never by what only compiles it.
REWRITTEN: set[str] = set()
#: Files already looked at (warned or found quiet): each is read at most once.
CHECKED: dict[str, object] = {}
#: Whether the runner's hook reached this process, a child of its program (commands/run.py).
runner_child = False


def _first_look(path: str) -> bool:
    """True the first time ``path`` is asked about, from any thread (``setdefault`` is atomic)."""
    mine = object()
    return CHECKED.setdefault(path, mine) is mine


def check_importer(frame: FrameType | None) -> None:
    """Warn if the module running ``frame`` needed the rewrite and did not get it."""
    __tracebackhide__ = True  # noqa: F841
    if frame is None:
        return
    module_globals = frame.f_globals
    path = module_globals.get("__file__")
    where = frame.f_code.co_filename
    name = module_globals.get("__name__")
    if where.startswith("<") or (where != path and not isinstance(path, str)):
        # Code without a file: ``python -c``, standard input, ``exec(compile(text, name, "exec"))``.
        name = name if isinstance(name, str) else "?"
        found = _fileless(frame, where, name)
    else:
        if (
            not isinstance(path, str)
            or path in REWRITTEN
            or not path.endswith(".py")
            or not isinstance(name, str)
            or name.partition(".")[0] == "jaxrewrite"
            or not _first_look(path)
        ):
            return
        try:
            with open(path, "rb") as file:
                text = importlib.util.decode_source(file.read())
        except (OSError, SyntaxError, UnicodeDecodeError):
            return  # not ours to report: Python itself reports what it cannot read or compile
        found, where = diagnose_text(text, path, name), path
    if found is not None:
        registry = module_globals.setdefault("__warningregistry__", {})
        warnings.warn_explicit(found[0], NotRewrittenWarning, where, found[1], name, registry)


def _fileless(frame: FrameType, where: str, name: str) -> tuple[str, int] | None:
    """The warning (once per code name) for code that has no file. Its text is the ``-c``
    argument (``sys.orig_argv``) or in ``linecache`` (IPython, doctest); where it is nowhere
    (standard input, a string compiled and run), the warning says it cannot tell."""
    if where in REWRITTEN or where.startswith("<frozen"):
        return None
    ipython = sys.modules.get("jaxrewrite.integrations.ipython")
    if ipython is not None and getattr(ipython, "_active", None):
        return None  # cells are the extension's: it rewrites them or says why not
    if not _first_look(where):
        return None
    argv = getattr(sys, "orig_argv", [])
    fix: str | None = None
    if where == "<string>" and name == "__main__" and "-c" in argv[:-1]:
        text: str | None = argv[argv.index("-c") + 1]
        kind = "code given with 'python -c'"
        if argv[1:3] == ["-m", "jaxrewrite"]:
            # The runner rewrites ``-c`` code that opts in: only the pragma is missing.
            kind = "code given with 'python -m jaxrewrite -c'"
            fix = f"{kind} is rewritten only when it opts in: start it with '# jaxrewrite: enable'"
    else:
        import linecache

        lines = linecache.getlines(where)
        text = "".join(lines) if lines else None
        kind = (
            "code read from standard input"
            if where == "<stdin>"
            else f"code compiled as {where!r} (not from a file)"
        )
    tail = (
        "put it in a file that opts in and run it with 'python -m jaxrewrite FILE', or import it "
        "with the hook installed"
    )
    if text is not None:
        return diagnose_text(text, where, name, fix or f"{kind} is never rewritten: {tail}")
    message = (
        f"{kind} fetched a marker from jaxrewrite: such code is never rewritten, and its text "
        "is nowhere to be read, so jaxrewrite cannot tell which of its Static/NoDiff "
        f"annotations do nothing: {tail}"
    )
    return message, frame.f_lineno


def diagnose_text(
    text: str, path: str, name: str, fix: str | None = None
) -> tuple[str, int] | None:
    """The warning for module ``name`` of this text, with its line, or None when nothing is lost;
    ``fix`` replaces what the warning says to do."""
    try:
        from jaxrewrite.engine.build import build_analysis

        analysis = build_analysis(text, path, require_pragma=False)
    except SyntaxError:
        return None
    first = analysis.first_edit()
    # A Static field of an Equinox Module or flax.struct class loses its static=True too.
    field = min(analysis.fields, key=lambda f: (f.stmt.lineno, f.stmt.col_offset), default=None)
    if field is not None and (first is None or field.stmt.lineno < first.target.lineno):
        line = field.stmt.lineno
        lost = f"the Static field {field.name!r} (line {line}) is a pytree leaf"
    elif first is not None:
        line = first.target.lineno
        lost = f"the Static/NoDiff parameters of {first.target.name!r} (line {line}) are traced"
    else:
        return None  # aliases, is_static, markers no transform reads: nothing is lost
    if fix is None:
        fix = _fix(analysis.header.enabled, analysis.header.ignored_lines, name, path)
    return f"module {name!r} was not rewritten, so {lost}: {fix}", line


def _fix(enabled: bool, ignored: tuple[int, ...], name: str, path: str) -> str:
    if not enabled:
        where = (
            f" (the one on line {ignored[0]} does not count: it is not a comment in the header)"
            if ignored
            else ""
        )
        return f"add '# jaxrewrite: enable' as a comment line in its header{where}"
    loader, composable = _foreign_loader(name)
    if loader is None:
        return _fix_for(name, path)
    if not composable:
        return (
            f"it was loaded by {loader}, a loader jaxrewrite's hook does not know (it composes "
            "with Python's source loader and its subclasses, and pytest's assertion rewriting): "
            "import it without that loader, or give it the rewritten text ('python -m jaxrewrite "
            f"show'); {COMPOSE}"
        )
    if _hooked(name, path):
        return (
            f"it was loaded by {loader}, whose finder stands in front of jaxrewrite's: install "
            "jaxrewrite's hook after that tool's (jaxrewrite.install() again moves it to the "
            f"front); {COMPOSE}"
        )
    return f"it was loaded by {loader}: " + _fix_for(name, path)


def _hooked(name: str = "", path: str = "") -> bool | None:
    """Whether a hook is installed (None: none); with ``path``, whether it covers that file."""
    finder = sys.modules.get("jaxrewrite.hook.finder")
    hook = None if finder is None else finder.active()
    if hook is None:
        return None
    return hook.covers(name, path) if path else True


def _fix_for(name: str, path: str) -> str:
    """What to do for an opted-in module that ran unrewritten, by how the program started."""
    # In a process the runner's program started (``RUNNER_ENV`` inherited).
    if os.environ.get(RUNNER_ENV) and runner_child and name in ("__main__", "__mp_main__"):
        return (
            "this process was started by the program that 'python -m jaxrewrite' runs, as 'python "
            "SCRIPT': the runner's hook reached it for imports, but a script is rewritten only "
            "when the runner starts it: start it with [sys.executable, '-m', 'jaxrewrite', "
            "SCRIPT, ...]"
        )
    if os.environ.get(RUNNER_ENV) and not _hooked():
        return (
            "this process was started by the program that 'python -m jaxrewrite' runs, without "
            "the runner's hook: its interpreter ignored PYTHONPATH (python -E or -I) or was given "
            "one without the entry the runner puts first on it (jaxrewrite/commands/childsite); "
            "keep that entry in the child's PYTHONPATH, or call jaxrewrite.install() before the "
            "import"
        )
    top = name.partition(".")[0]
    if _hooked(name, path) is False:
        return (
            f"it lies in the interpreter's installation ({os.path.dirname(path)}), whose files the "
            f"hook reads only for the packages named: name {top!r} (jaxrewrite.install(packages="
            f"[{top!r}]), 'python -m jaxrewrite --packages {top}', pytest's --jaxrewrite-packages="
            f'{top}, or packages = ["{top}"] in [tool.jaxrewrite] of pyproject.toml)'
        )
    run = sys.modules.get("jaxrewrite.commands.run")
    if run is not None and getattr(run, "_hook", None) is not None and _hooked():
        return (
            "under 'python -m jaxrewrite', whose hook covers the program's own modules: it was "
            "imported before the runner installed its hook (by a sitecustomize, a .pth file or an "
            "interpreter startup hook)"
        )
    if name == "__main__":
        return f"run the program with 'python -m jaxrewrite {path}'"
    # Under pytest: its option is the fix.
    plugin = sys.modules.get("jaxrewrite.integrations.pytest_plugin")
    fix = plugin.not_rewritten_fix(name.partition(".")[0]) if plugin is not None else None
    if isinstance(fix, str):
        return fix
    if _hooked():
        return "it was imported before jaxrewrite.install(): install the hook first"
    return (
        "no import hook is installed: call jaxrewrite.install() before importing it, "
        "or run the program with 'python -m jaxrewrite'"
    )


def _foreign_loader(name: str) -> tuple[str | None, bool]:
    """The loader of module ``name`` and the finder that finds it, named, where it is neither
    Python's plain source loader nor jaxrewrite's; and whether jaxrewrite composes with it."""
    from importlib.machinery import SourceFileLoader

    loader = getattr(getattr(sys.modules.get(name), "__spec__", None), "loader", None)
    kind = type(loader)
    if loader is None or kind is SourceFileLoader or kind.__module__.startswith("jaxrewrite."):
        return None, False
    parent = getattr(sys.modules.get(name.rpartition(".")[0]), "__path__", None)
    named = f"{kind.__module__}.{kind.__qualname__}"
    for finder in sys.meta_path:
        try:  # the warning's path only: asked again, to name who hands out that loader
            found = type(getattr(finder.find_spec(name, parent), "loader", None)) is kind
        except Exception:
            found = False
        if found and not type(finder).__module__.startswith("jaxrewrite."):
            who = finder if isinstance(finder, type) else type(finder)
            named += f" (found by the finder {who.__module__}.{who.__qualname__})"
            break
    return named, isinstance(loader, SourceFileLoader)


def caller() -> FrameType | None:
    """The frame that fetched a marker from jaxrewrite (two up: this, then ``__getattr__``),
    past importlib's (``from jaxrewrite import Static`` asks through ``_handle_fromlist``) and
    the package's own ``__getattr__``, which hands a marker on to ``markers``'."""
    frame: FrameType | None = sys._getframe(2)  # called from __getattr__: two frames exist
    while frame is not None and frame.f_globals.get("__name__") in _IMPORT_SYSTEM:
        frame = frame.f_back
    return frame


#: Where the guide says how jaxrewrite composes with other import hooks.
COMPOSE = "see 'Other import hooks' in the guide (docs/guide.md)"

_IMPORT_SYSTEM = frozenset(
    {"importlib._bootstrap", "_frozen_importlib", "importlib._bootstrap_external", "jaxrewrite"}
)
