"""The import hook: a finder first on ``sys.meta_path`` and the loaders it hands opted-in modules.

As pytest's assertion rewriting does: the finder asks the finders after it and looks at the spec
they return, for the user's code only (``RewritingFinder.covers``). A file with a current pyc of
the hook's, or whose bytes opt in, gets ``RewritingLoader``; another tool's source loader is
wrapped for that one module (``_Composed``). No attribute of Python's import classes is ever
assigned; the state is the finder's (docs/design.md, ``jaxrewrite/hook/``).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import site
import sys
import sysconfig
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.machinery import ModuleSpec, SourceFileLoader
from io import BytesIO
from types import CodeType, ModuleType, TracebackType
from typing import Any

from jaxrewrite import errors, notrewritten
from jaxrewrite.header import NEEDLE, Header, scan_header
from jaxrewrite.hook import cachetag, pycfile

DEFAULT = pycfile.DEFAULT


def _header(data: bytes) -> Header | None:
    """None where the bytes cannot be decoded: compiled plain, the error is Python's own."""
    try:
        return scan_header(importlib.util.decode_source(data))
    except (SyntaxError, UnicodeDecodeError):
        return None


def _opted_in(data: bytes) -> Header | None:
    header = _header(data) if NEEDLE in data else None
    return header if header is not None and header.enabled else None


def compile_opted_in(
    data: bytes,
    path: str,
    steps: pycfile.Pipeline = DEFAULT,
    optimize: int = -1,
    header: Header | None = None,
) -> CodeType:
    """The code to run for ``path``, marked as rewritten where it opts in. A RewriteError comes
    without the engine's frames, which would bury the user's file and line."""
    __tracebackhide__ = True  # noqa: F841
    header = _header(data) if header is None else header
    try:
        code = steps.compile(data, path, optimize, header)
    except SyntaxError as err:
        raise err.with_traceback(None) from None
    if header is not None and header.enabled:
        notrewritten.REWRITTEN.add(path)
    return code


def _served(code: CodeType, path: str) -> CodeType:
    """Cached code about to run: marked as rewritten, its warnings said again."""
    notrewritten.REWRITTEN.add(path)
    errors.say(pycfile.held(code), path)
    return code


def script_code(data: bytes, filename: str) -> CodeType:
    """What ``python -m jaxrewrite SCRIPT`` runs: an opted-in script from the hook's pyc (a
    rewrite imports the engine), any other compiled as ``python`` would."""
    header = _header(data) if NEEDLE in data else None
    if header is None or not (header.enabled or header.unknown):
        return compile(data, filename, "exec", dont_inherit=True)
    if not header.enabled:
        return compile_opted_in(data, filename, header=header)  # JR005 is the engine's to say
    # Keyed by the hash of the bytes in hand: a stat taken after they were read may be newer.
    pyc = cachetag.cache_path(filename)
    code = None if pyc is None else pycfile.load(pyc, filename, _NO_STAT, lambda: data)
    if code is not None:
        return _served(code, filename)
    code = compile_opted_in(data, filename, optimize=sys.flags.optimize, header=header)
    if pyc is not None:
        pycfile.store(pyc, code, pycfile.hash_key(data), filename)
    return code


#: Scripts' pycs are hash-checked: no stat is compared (a zero one matches no timestamped pyc).
_NO_STAT = os.stat_result((0,) * 10)


class RewritingLoader(SourceFileLoader):
    """Loads a module with a current pyc of the hook's, or whose bytes opt in (``look``); bytes
    that no longer opt in when it reads them run as written, and nothing of them is cached."""

    def __init__(self, fullname: str, path: str, steps: pycfile.Pipeline = DEFAULT) -> None:
        super().__init__(fullname, path)
        self.steps = steps
        self.found: tuple[CodeType | None, bytes | None, Any, Header | None] | None = None

    def look(self) -> tuple[CodeType | None, bytes | None, Any, Header | None]:
        """(the hook's current code, else the bytes; the stat taken first; their header where
        they opt in)."""
        path = self.path
        try:
            st = os.stat(path)
        except OSError:
            return None, None, None, None  # the plain route raises what Python raises
        pyc = cachetag.cache_path(path, sys.flags.optimize, self.steps.name)
        code = None if pyc is None else pycfile.load(pyc, path, st, lambda: self.get_data(path))
        if code is not None:
            return code, None, st, None
        data = self.get_data(path)  # io.open_code, as SourceFileLoader reads
        return None, data, st, _opted_in(data)

    def get_code(self, fullname: str) -> CodeType:
        __tracebackhide__ = True  # noqa: F841
        found, self.found = self.found, None
        if found is None or found[0] is None:
            found = self.look()  # read again at load: an edit since the finder looked runs
        code, data, st, header = found
        if code is not None:
            return _served(code, self.path)
        if data is None:  # SourceLoader's: a source file always has code
            return super().get_code(fullname)  # type: ignore[return-value]
        if header is None:
            return super().source_to_code(data, self.path)
        code = compile_opted_in(data, self.path, self.steps, sys.flags.optimize, header)
        pyc = cachetag.cache_path(self.path, sys.flags.optimize, self.steps.name)
        if pyc is not None:
            pycfile.store(pyc, code, pycfile.key_for(st, data), self.path)
        return code


class _Composed:
    """In front of another tool's source loader class, for one module: the tool's ``get_code``
    runs on the rewritten text, or on the hook's pyc of that code, named for the tool."""

    path: str
    _jr_name = ""
    #: While the tool's get_code runs for an opted-in module: the file's bytes (rewritten as
    #: the tool reads them) and the hook's current pyc of the composed code.
    _jr_data: bytes | None = None
    _jr_pyc: bytes | None = None
    _jr_said: Any = ()

    def get_code(self, fullname: str) -> CodeType:
        __tracebackhide__ = True  # noqa: F841
        path = self.path
        try:
            st = os.stat(path)
        except OSError:
            return super().get_code(fullname)  # type: ignore[misc, no-any-return]
        pyc = cachetag.cache_path(path, sys.flags.optimize, self._jr_name)
        data = lambda: SourceFileLoader.get_data(self, path)  # type: ignore[arg-type]  # noqa: E731
        cached = None if pyc is None else pycfile.load(pyc, path, st, data)
        try:
            if cached is not None:  # handed to the tool as its own pyc, checked as it checks one
                self._jr_data = b""
                self._jr_pyc = pycfile.pack(_served(cached, path), pycfile.stat_key(st))
                return super().get_code(fullname)  # type: ignore[misc, no-any-return]
            self._jr_data = super().get_data(path)  # type: ignore[misc]
            if _opted_in(self._jr_data) is None:
                self._jr_data = None
                return super().get_code(fullname)  # type: ignore[misc, no-any-return]
            code = super().get_code(fullname)  # type: ignore[misc]
            code = pycfile.keep(code, self._jr_said)
            notrewritten.REWRITTEN.add(path)
            if pyc is not None:
                pycfile.store(pyc, code, pycfile.key_for(st, self._jr_data), path)
            return code
        finally:
            self._jr_data = self._jr_pyc = None

    def get_data(self, path: str) -> bytes:
        if self._jr_data is None:
            return super().get_data(path)  # type: ignore[misc, no-any-return]
        if path != self.path:
            if self._jr_pyc is None:
                raise OSError("no pyc of the tool's for a module jaxrewrite rewrites")
            return self._jr_pyc
        data = self._jr_data or super().get_data(path)  # type: ignore[misc]
        try:
            text, self._jr_said = pycfile.rewrite_text(
                importlib.util.decode_source(data), path, _opted_in(data)
            )
        except SyntaxError as err:
            raise err.with_traceback(None) from None
        return text.encode(tokenize.detect_encoding(BytesIO(data).readline)[0])

    def set_data(self, path: str, data: bytes, *, _mode: int = 0o666) -> None:
        if self._jr_data is None:
            super().set_data(path, data, _mode=_mode)  # type: ignore[misc]


class RewritingFinder:
    """Asks the finders after it for a spec, and hands the user's source files its loaders.
    ``owned``: loaders of an integration (pytest's assertion rewriting) and their pipelines."""

    def __init__(self) -> None:
        self.handles: list[HookHandle] = []
        self.packages: frozenset[str] = frozenset()
        self.owned: dict[int, tuple[object, pycfile.Pipeline]] = {}
        self.installation = _installation()

    def sync(self) -> None:
        self.packages = frozenset(name for handle in self.handles for name in handle.packages)
        self.owned = {id(o[0]): o for handle in self.handles for o in handle.owned}
        if not self.handles:
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self]

    def covers(self, fullname: str, origin: str) -> bool:
        """The user's file (outside the installation), or one of a package named."""
        top = fullname.partition(".")[0]
        if top in self.packages:
            return True
        return top != "jaxrewrite" and not origin.startswith(self.installation)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        meta_path = sys.meta_path
        # Only the finders after this one: never itself, so no recursion.
        at = next((i for i, finder in enumerate(meta_path) if finder is self), None)
        if at is None:
            return None
        for finder in meta_path[at + 1 :]:
            find_spec = getattr(finder, "find_spec", None)
            spec: ModuleSpec | None = (
                None if find_spec is None else find_spec(fullname, path, target)
            )
            if spec is not None:
                origin = spec.origin
                if origin is not None and origin.endswith(".py") and self.covers(fullname, origin):
                    self._take(spec, origin)
                return spec
        return None

    def _take(self, spec: ModuleSpec, origin: str) -> None:
        loader = spec.loader
        kind = type(loader)
        if kind is SourceFileLoader or id(loader) in self.owned:
            # A file that does not opt in keeps the loader it was found with, untouched.
            steps = DEFAULT if kind is SourceFileLoader else self.owned[id(loader)][1]
            ours = RewritingLoader(spec.name, origin, steps)
            ours.found = ours.look()
            if ours.found[0] is not None or ours.found[3] is not None:
                spec.loader = ours
                spec.cached = cachetag.cache_path(origin, sys.flags.optimize, steps.name)
        elif (
            isinstance(loader, SourceFileLoader)
            and not isinstance(loader, (RewritingLoader, _Composed))
            and hasattr(loader, "__dict__")
        ):
            # A copy of the tool's loader whose class puts ``_Composed`` in front of its own.
            composed: Any = object.__new__(_composed(type(loader)))
            composed.__dict__.update(loader.__dict__)
            spec.loader = composed


@functools.cache
def _composed(kind: type) -> type:
    """``_Composed`` in front of a tool's loader class; its pycs named for the tool's version."""
    import hashlib

    tool = sys.modules.get(kind.__module__.partition(".")[0])
    named = f"{kind.__module__}.{kind.__qualname__} {getattr(tool, '__version__', '')}"
    digest = hashlib.blake2b(named.encode()).hexdigest()[:12]
    made = type(kind.__name__, (_Composed, kind), {"_jr_name": "x" + digest})
    made.__qualname__ = f"composed({kind.__module__}.{kind.__qualname__})"
    made.__module__ = __name__
    return made


def _installation() -> tuple[str, ...]:
    """The folders of the interpreter's installation (stdlib, site-packages, user site), each
    ending in a separator, as given and with links resolved."""
    found: set[str] = set()
    for scheme in (
        sysconfig.get_paths(),
        sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix}),
    ):
        found.update(
            scheme[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in scheme
        )
    found.update(getattr(site, "getsitepackages", list)())
    found.add(getattr(site, "getusersitepackages", lambda: "")())
    found.update(p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages"))
    return tuple(
        {os.path.join(f(p), "") for p in found if p for f in (os.path.abspath, os.path.realpath)}
    )


@dataclass(eq=False)
class HookHandle:
    """What ``install`` returns; ``uninstall()`` or leaving the ``with`` block withdraws it."""

    finder: RewritingFinder
    packages: frozenset[str]
    owned: tuple[Any, ...] = ()

    def uninstall(self) -> None:
        """Withdraw this install; the hook stays while other installs are live."""
        if self in self.finder.handles:
            self.finder.handles.remove(self)
            self.finder.sync()

    def __enter__(self) -> HookHandle:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.uninstall()


def active() -> RewritingFinder | None:
    return next((f for f in sys.meta_path if isinstance(f, RewritingFinder)), None)


def install(packages: Iterable[str] | None = None, owned: tuple[Any, ...] = ()) -> HookHandle:
    """Rewrite the opted-in modules imported from now on: the user's own files, and those of the
    top-level ``packages`` named. One finder, first on ``sys.meta_path``; installs add up until
    each is withdrawn by its handle, or all by ``uninstall()``."""
    names = frozenset([packages] if isinstance(packages, str) else packages or ())
    bad = sorted(name for name in names if not name.isidentifier())
    if bad:
        raise ValueError(f"install() takes top-level package names, not {bad!r}")
    finder = active() or RewritingFinder()
    handle = HookHandle(finder, names, owned)
    finder.handles.append(handle)
    finder.sync()
    if not sys.meta_path or sys.meta_path[0] is not finder:
        sys.meta_path[:] = [finder, *(f for f in sys.meta_path if f is not finder)]
    return handle


def uninstall() -> None:
    """Remove the hook entirely; every other entry of ``sys.meta_path`` stays where it is."""
    finder = active()
    if finder is not None:
        finder.handles.clear()
        finder.sync()
