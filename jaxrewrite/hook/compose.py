"""Composing with other import hooks: whichever loader compiles an opted-in file compiles the rewrite.

jaxtyping's ``install_import_hook`` (and its pytest option), ``beartype.claw`` and typeguard's
``install_import_hook`` each put a finder of their own on ``sys.meta_path`` (or ``sys.path_hooks``)
whose loader is a ``SourceFileLoader`` subclass. Installed after jaxrewrite, their finder stands in
front and jaxrewrite's is never asked; installed before, jaxrewrite's finder sees a loader it must
not replace (the other tool's checks would be lost). Their common seam: every one of them compiles
what ``SourceLoader.get_code`` hands it, which reads the source through ``FileLoader.get_data`` and
validates its pyc through ``SourceFileLoader.path_stats``. Those two methods, for a loader of any
other subclass whose module the hook covers, serve the rewritten text (the other tool then
transforms and compiles jaxrewrite's rewrite, in any order of installation) and refuse the stat
(no pyc read or written by that loader: its cache is keyed by mtime and could hold code from a
run with or without the rewrite). Plain loaders and jaxrewrite's own are untouched: the finder
handles them, with its exact cache.
"""

from __future__ import annotations

import tokenize
from importlib.machinery import SourceFileLoader
from io import BytesIO
from collections.abc import Mapping
from typing import Any, Callable

from jaxrewrite.header import Header, might_opt_in

__all__ = ["enable"]

_get_data: Callable[[Any, str], bytes] | None = None
_path_stats: Callable[[Any, str], Mapping[str, Any]] | None = None

#: What the finder hands over in ``enable`` (this module is below it: it imports nothing back):
#: the active hook (None when uninstalled), jaxrewrite's own loader class, the finder's reading
#: of a file's bytes and of their header.
_active: Callable[[], Any] = lambda: None
_own: type = SourceFileLoader
_read_source: Callable[[str, bool], tuple[bytes | None, Any]] | None = None
_header: Callable[[bytes], Header | None] | None = None


def _foreign(loader: Any, path: str) -> bool:
    """Is ``loader`` another tool's source loader, reading the source of a module the hook covers?"""
    hook = _active()
    if hook is None or type(loader) is SourceFileLoader or isinstance(loader, _own):
        return False
    if not path.endswith(".py") or path != getattr(loader, "path", None):
        return False  # a pyc, or another file the loader reads
    name = getattr(loader, "name", None)
    return isinstance(name, str) and (hook.packages is None or name.partition(".")[0] in hook.packages)


def rewritten_bytes(data: bytes, path: str) -> bytes | None:
    """The rewrite of an opted-in file's bytes, in the file's own encoding (so the loader decodes
    it as it would the file); None where the bytes do not opt in."""
    import importlib.util

    from jaxrewrite.hook.notrewritten import mark

    header = _opts_in(data)
    if header is None:
        return None
    from jaxrewrite.engine.rewrite import rewrite_source

    text = rewrite_source(importlib.util.decode_source(data), path, header=header, report=True)
    encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
    mark(path)
    return text.encode(encoding)


def _composed_get_data(self: Any, path: str) -> bytes:
    __tracebackhide__ = True  # noqa: F841  (pytest hides this frame)
    data = _get_data(self, path)  # type: ignore[misc]  # set by enable() before this is reachable
    if type(self) is not SourceFileLoader and _foreign(self, path):  # nearly every import: the plain loader
        try:
            rewritten = rewritten_bytes(data, path)
        except SyntaxError as err:
            raise err.with_traceback(None) from None  # a RewriteError names the user's file and line
        if rewritten is not None:
            return rewritten
    return data


def _composed_path_stats(self: Any, path: str) -> Mapping[str, Any]:
    __tracebackhide__ = True  # noqa: F841
    if type(self) is not SourceFileLoader and _foreign(self, path):
        assert _read_source is not None  # set by enable() before this is reachable
        data, _ = _read_source(path, True)
        if data is not None and _opts_in(data) is not None:
            raise OSError(f"{path} opts in to jaxrewrite: {type(self).__qualname__}'s pyc is not used for it")
    return _path_stats(self, path)  # type: ignore[misc]


def _opts_in(data: bytes) -> Header | None:
    """The header of bytes that opt in; None for any others."""
    assert _header is not None  # set by enable() before this is reachable
    header = _header(data) if might_opt_in(data) else None
    return header if header is not None and header.enabled else None


def enable(
    active: Callable[[], Any],
    own: type,
    read_source: Callable[[str, bool], tuple[bytes | None, Any]],
    header: Callable[[bytes], Header | None],
) -> None:
    """Put the two methods in place (once per process; they do nothing while no hook is installed)."""
    global _get_data, _path_stats, _active, _own, _read_source, _header
    _active, _own, _read_source, _header = active, own, read_source, header
    if _get_data is not None:
        return
    from importlib._bootstrap_external import FileLoader

    _get_data = FileLoader.get_data
    _path_stats = SourceFileLoader.path_stats
    FileLoader.get_data = _composed_get_data  # type: ignore[method-assign]
    SourceFileLoader.path_stats = _composed_path_stats  # type: ignore[method-assign]
