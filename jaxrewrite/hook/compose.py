"""Composing with other import hooks: whichever loader compiles an opted-in file compiles the rewrite.

jaxtyping's ``install_import_hook`` (and its pytest option), ``beartype.claw`` and typeguard's
``install_import_hook`` each put a finder of their own on ``sys.meta_path`` (or ``sys.path_hooks``)
whose loader is a ``SourceFileLoader`` subclass. Installed after jaxrewrite, their finder stands in
front and jaxrewrite's is never asked; installed before, jaxrewrite's finder sees a loader it must
not replace (the other tool's checks would be lost). Their common seam: every one of them compiles
what ``SourceLoader.get_code`` hands it, which reads the source, and the pyc, through
``FileLoader.get_data``, and writes the pyc through ``SourceFileLoader.set_data``. For a loader of
any other subclass whose module the hook covers and opts in, those two methods serve the rewritten
text (the other tool then transforms and compiles jaxrewrite's rewrite, in any order of
installation) and keep that loader's own pyc exact: it is written keyed by the hash of the
source's bytes and of the rewriter (a checked hash-based pyc, under the tool's own name), and read
back only when both match. The tool's mtime-keyed pycs, and those it writes alone (keyed by the
plain hash), are never served for the rewrite, nor the rewrite's to the tool alone. Plain loaders
and jaxrewrite's own are untouched: the finder handles them, with its exact cache.
"""

from __future__ import annotations

import _imp
import importlib.util
import tokenize
from importlib.machinery import SourceFileLoader
from io import BytesIO
from typing import Any, Callable

from jaxrewrite.header import Header, might_opt_in
from jaxrewrite.errors import Notes, say
from jaxrewrite.hook import pycfile, tag

__all__ = ["enable"]

_get_data: Callable[[Any, str], bytes] | None = None
_set_data: Callable[..., None] | None = None

#: What the finder hands over in ``enable`` (this module is below it: it imports nothing back):
#: the active hook (None when uninstalled), jaxrewrite's own loader class, the finder's reading
#: of a file's bytes and of their header.
_active: Callable[[], Any] = lambda: None
_own: type = SourceFileLoader
_read_source: Callable[[str, bool], tuple[bytes | None, Any]] | None = None
_header: Callable[[bytes], Header | None] | None = None

#: Source path -> (the loader compiling its rewrite now, the key its pyc is written under, or
#: None where none can be: no pyc then). Set where that loader reads the source, taken where it
#: writes the pyc (``SourceLoader.get_code`` does both, in that order, in one call).
_PENDING: dict[str, tuple[Any, bytes | None, Notes]] = {}

#: The pyc flags (PEP 552): the key is checked against the source (what is written), or is
#: trusted (what the loader is handed, the key checked here already). What is written starts
#: with a magic number of its own, so that the tool alone rejects it whatever
#: ``--check-hash-based-pycs`` says (with ``never`` it would trust any hash-based pyc).
_CHECKED = (3).to_bytes(4, "little")
_TRUSTED = (1).to_bytes(4, "little")
_MAGIC = importlib.util.MAGIC_NUMBER
_STORED = _MAGIC[:2] + b"jr"
_seed: int | None = None


def _foreign(loader: Any) -> bool:
    """Is ``loader`` another tool's source loader, for a module the hook covers?"""
    hook = _active()
    if hook is None or type(loader) is SourceFileLoader or isinstance(loader, _own):
        return False
    name = getattr(loader, "name", None)
    return isinstance(name, str) and (hook.packages is None or name.partition(".")[0] in hook.packages)


def rewritten_bytes(data: bytes, path: str) -> tuple[bytes, Notes] | None:
    """The rewrite of an opted-in file's bytes, in the file's own encoding (so the loader decodes
    it as it would the file), and the warnings issued on the way (the markers that do nothing);
    None where the bytes do not opt in."""
    from jaxrewrite.hook.notrewritten import mark

    header = _opts_in(data)
    if header is None:
        return None
    from jaxrewrite.hook.pipeline import rewrite_text

    text, said = rewrite_text(importlib.util.decode_source(data), path, header)
    encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
    mark(path)
    return text.encode(encoding), said


def _key(data: bytes) -> bytes | None:
    """What a foreign loader's pyc of the rewrite of ``data`` is keyed by: the hash of the bytes,
    seeded by the rewriter's own hash (so never the plain hash the tool alone writes); None where
    the rewriter cannot be hashed."""
    global _seed
    if _seed is None:
        try:
            digest = tag.rewriter_hash()
        except OSError:
            return None
        # siphash, as for the key itself: hashlib's first sha256 costs an import ~3 ms.
        _seed = int.from_bytes(_imp.source_hash(0, f"jaxrewrite compose {digest}".encode()), "little", signed=True)
    return _imp.source_hash(_seed, data)


def _composed_get_data(self: Any, path: str) -> bytes:
    __tracebackhide__ = True  # noqa: F841  (pytest hides this frame)
    data = _get_data(self, path)  # type: ignore[misc]  # set by enable() before this is reachable
    if type(self) is SourceFileLoader:  # nearly every import: the plain loader
        return data
    source = getattr(self, "path", None)
    if path == source:
        _PENDING.pop(path, None)  # whatever it compiles now, no earlier read decides its pyc
        if path.endswith(".py") and _foreign(self):
            try:
                rewritten = rewritten_bytes(data, path)
            except SyntaxError as err:
                raise err.with_traceback(None) from None  # a RewriteError names the user's file and line
            if rewritten is not None:
                _PENDING[path] = (self, _key(data), rewritten[1])
                return rewritten[0]
    elif isinstance(source, str) and source.endswith(".py") and path.endswith(".pyc") and _foreign(self):
        return _cached(self, data, source)
    return data


def _cached(loader: Any, pyc: bytes, source: str) -> bytes:
    """``loader``'s pyc for ``source``: as it is where the source does not opt in; where it does,
    handed over as trusted if it holds the rewrite of these very bytes, else a miss (OSError:
    the loader compiles the source, which is rewritten)."""
    assert _read_source is not None  # set by enable() before this is reachable
    data, _ = _read_source(source, True)
    if data is None:
        return pyc
    key = _key(data)
    if key is not None and pyc[:16] == _STORED + _CHECKED + key:
        # Only the rewrite of bytes that opt in is written under a key: no header to read.
        from jaxrewrite.hook.notrewritten import mark

        found = pycfile.read_footer(pyc)
        if found is None:
            raise OSError(f"{source}: {type(loader).__qualname__}'s pyc of its rewrite has no warnings after its code")
        mark(source)
        say(found[0], source)  # what the cold import said (the loader's marshal ignores the footer)
        return _MAGIC + _TRUSTED + pyc[8:]
    if _opts_in(data) is None:
        return pyc
    raise OSError(f"{source} opts in to jaxrewrite: {type(loader).__qualname__}'s pyc does not hold its rewrite")


def _composed_set_data(self: Any, path: str, data: bytes, *, _mode: int = 0o666) -> None:
    __tracebackhide__ = True  # noqa: F841
    if type(self) is not SourceFileLoader and _PENDING:
        pending = _PENDING.get(getattr(self, "path", None))  # type: ignore[arg-type]
        if pending is not None and pending[0] is self and path.endswith(".pyc"):
            del _PENDING[self.path]
            if pending[1] is None:
                return  # no key: no pyc, rather than one the tool alone would take for its own
            data = _STORED + _CHECKED + pending[1] + bytes(data[16:]) + pycfile.footer(pending[2])
    _set_data(self, path, data, _mode=_mode)  # type: ignore[misc]


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
    global _get_data, _set_data, _active, _own, _read_source, _header
    _active, _own, _read_source, _header = active, own, read_source, header
    if _get_data is not None:
        return
    from importlib._bootstrap_external import FileLoader

    _get_data = FileLoader.get_data
    _set_data = SourceFileLoader.set_data
    FileLoader.get_data = _composed_get_data  # type: ignore[method-assign]
    SourceFileLoader.set_data = _composed_set_data  # type: ignore[method-assign, assignment]
