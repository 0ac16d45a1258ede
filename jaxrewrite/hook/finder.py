"""The import hook: a front meta-path finder that hands opted-in modules to a rewriting loader.

Why a front finder that delegates: whoever finds a module (PathFinder, an editable install's
finder, another hook) keeps finding it; we only look at the spec they return, and return it
ourselves so the search is never repeated. Only plain ``.py`` files whose header opts in get our
loader; everything else keeps its normal loader and normal bytecode. Whether a file opts in is
remembered on disk (hook/index.py), so a file that does not is read once, not at every start.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterable, Sequence
from importlib.machinery import ModuleSpec, SourceFileLoader
from types import CodeType, ModuleType, TracebackType

from jaxrewrite.header import Header, head_rules_out, might_opt_in, scan_header
from jaxrewrite.hook import compose, index, notes, notrewritten, pipeline, pycfile, tag

__all__ = ["OWNED_LOADERS", "HookHandle", "RewritingFinder", "RewritingLoader", "compile_opted_in", "install", "uninstall"]


class RewritingLoader(SourceFileLoader):
    """Loads an opted-in module from its rewritten source, through jaxrewrite's own pyc cache.

    ``get_source`` is inherited and returns the file as written: the rewrite keeps line numbers,
    so tracebacks, ``inspect`` and coverage read the original file. The normal ``.pyc`` is never
    read or written.
    """

    def __init__(
        self,
        fullname: str,
        path: str,
        source: bytes | None = None,
        code: CodeType | None = None,
        steps: pipeline.Pipeline = pipeline.DEFAULT,
        header: Header | None = None,
    ) -> None:
        super().__init__(fullname, path)
        # What the finder already read (the bytes, their header, the cached code if it hit): used once.
        self._source = source
        self._code = code
        self._header = header
        self.pipeline = steps

    def get_code(self, fullname: str) -> CodeType:
        __tracebackhide__ = True  # noqa: F841  (pytest hides this frame, as it hides its own)
        path = self.get_filename(fullname)
        code, self._code = self._code, None
        seen, self._source = self._source, None
        header, self._header = self._header, None
        if code is not None:
            # Cached code for the very bytes the finder decided on: nothing is read again.
            notrewritten.mark(path)
            notes.say(code, path)
            return code
        # What is compiled is read as SourceFileLoader reads it (``get_data``: io.open_code, so an
        # embedder's open-code hook sees it). The decision is made again on these bytes unless
        # they are the finder's: whether they opt in, their cache entry and their key are theirs.
        data = self.get_data(path)
        optimize = sys.flags.optimize
        source_hash = importlib.util.source_hash(data)
        pyc = tag.cache_path(path, optimize, self.pipeline.name)
        if pyc is None:
            pycfile.trace(f"no pyc for {path}: no cache tag (jaxrewrite's sources unreadable, or no bytecode cache)")
        if data != seen:
            header = _header(data)  # not read by the finder (a reload), or changed since
            if pyc is not None and header is not None and header.enabled:
                code = cached(pyc, source_hash, path)
                if code is not None:
                    return code
        try:
            code = compile_opted_in(data, path, self.pipeline, optimize, header)
        except SyntaxError as err:
            # A RewriteError (or Python's own SyntaxError) names the user's file, line and column;
            # the engine's frames above it would only bury that. Internal errors keep theirs.
            raise err.with_traceback(None) from None
        if pyc is None:
            pass
        elif header is None or not header.enabled:
            # Only bytes that opt in are cached: a hit vouches for "it opts in" (see _maybe_rewrite).
            pycfile.trace(f"pyc not written for {path}: it no longer opts in")
        else:
            cache(pyc, code, source_hash, path)
        return code


def cached(pyc: str, source_hash: bytes, path: str) -> CodeType | None:
    """The rewritten code cached for these source bytes, marked as rewritten, its warnings said
    again (hook/notes.py); None on a miss."""
    code = pycfile.load(pyc, source_hash, path)
    if code is not None:
        notrewritten.mark(path)
        notes.say(code, path)
    return code


def cache(pyc: str, code: CodeType, source_hash: bytes, path: str) -> None:
    """Write ``code`` to ``pyc``, unless jaxrewrite changed on disk since the tag was taken (the
    tag would then name a rewriter that did not write it)."""
    if not tag.tag_is_current():
        pycfile.trace(f"pyc not written for {path}: jaxrewrite changed on disk since this process took its tag")
    else:
        pycfile.store(pyc, code, source_hash, path)


def compile_opted_in(
    data: bytes,
    path: str,
    steps: pipeline.Pipeline = pipeline.DEFAULT,
    optimize: int = -1,
    header: Header | None = None,
) -> CodeType:
    """The code to run for the file ``path`` whose bytes are ``data``, through ``steps``; where
    those bytes opt in, ``path`` is marked as running rewritten code (hook/notrewritten.py). The
    one place that marks: the loaders here and the runner (``python -m jaxrewrite``)."""
    if header is None:
        header = _header(data)
    code = steps.compile(data, path, optimize, header)
    if header is not None and header.enabled:
        notrewritten.mark(path)
    return code


class _Recheck:
    """``source_to_code`` of a plain loader the finder left alone, for the bytes it compiles.

    SourceFileLoader reads the file again after the finder looked (when its plain pyc is stale):
    a pragma saved in between would run unrewritten. These bytes decide again: if they opt in,
    they are rewritten (those very bytes), and the plain pyc is not written (a plain import must
    never run rewritten code). The loader keeps its type; only this one method is its own
    (and ``path_stats``, where the index settled the file: ``_StatCheck``).
    """

    __slots__ = ("loader",)

    def __init__(self, loader: SourceFileLoader) -> None:
        self.loader = loader

    def __call__(self, data: bytes, path: str, *, _optimize: int = -1) -> CodeType:
        loader = self.loader
        if might_opt_in(data):
            header = _header(data)
            if header is not None and header.enabled:
                pycfile.trace(f"{path} opts in since the finder read it: rewritten, no pyc written")
                setattr(loader, "set_data", _no_write)  # on the instance: its class stays as it was
                try:
                    return compile_opted_in(data, path, pipeline.DEFAULT, sys.flags.optimize, header)
                except SyntaxError as err:
                    raise err.with_traceback(None) from None
        return SourceFileLoader.source_to_code(loader, data, path, _optimize=_optimize)

    # FileLoader compares loaders by their __dict__, where this lives: any two are alike.
    def __eq__(self, other: object) -> bool:
        return type(other) is _Recheck

    def __hash__(self) -> int:
        return hash(_Recheck)


class _StatCheck:
    """``path_stats`` of a plain loader whose file the index says cannot opt in: where the
    index's entry is checked. The loader stats the source there to validate its pyc anyway, so
    that one stat serves both, and a settled file costs the hook no syscall of its own (``import
    jax``: ~540 stats fewer). Where the stat no longer matches the entry, the file is decided
    again, before Python looks at its pyc, as the finder would have (``_opts_in_now``).
    """

    __slots__ = ("entry", "name")

    def __init__(self, entry: index.Entry, name: str) -> None:
        self.entry = entry
        self.name = name

    def __call__(self, path: str) -> dict[str, float]:
        st = _stat(path)
        entry = self.entry
        if (entry[0] != st.st_mtime_ns or entry[1] != st.st_size) and _opts_in_now(self.name, path):
            # Changed since indexed, and it opts in now: its plain pyc (written by an import
            # without the hook since) must not run. No stats, so the loader reads the source,
            # compiles it through _Recheck, and writes no pyc (SourceLoader.get_code).
            raise OSError(f"{path} opts in since it was indexed")
        return {"mtime": st.st_mtime, "size": st.st_size}  # SourceFileLoader.path_stats's own

    def __eq__(self, other: object) -> bool:
        return type(other) is _StatCheck

    def __hash__(self) -> int:
        return hash(_StatCheck)


def _opts_in_now(name: str, path: str) -> bool:
    """Whether the file at ``path`` (module ``name``), changed since its index entry said it could
    not opt in, opts in now; the entry is brought up to date either way, from a stat taken before
    the read (``_maybe_rewrite``'s decision, at load time, where the loader can no longer change)."""
    folder, _, filename = path.rpartition(os.sep)
    place = _PLACES.get(folder) or index.place_of(folder, name, filename)
    data, key = _read_source(path, False, place.active)
    header = None if data is None else _header(data)
    if header is None or not header.enabled:
        place.does_not_opt_in(path, key, False)
        return False
    pycfile.trace(f"{path} opts in since it was indexed: rewritten by its plain loader, no pyc written")
    place.invalidate(path)  # the next process decides in the finder, and takes the hook's loader,
    if key is not None:
        place.record(path, key, index.MAYBE)  # knowing it opts in where this stat can be trusted
    return True


def _no_write(path: str, data: bytes, *, _mode: int = 0o666) -> None:
    """``set_data`` of a plain loader that ran rewritten code: no plain pyc is written."""


def _rechecked(spec: ModuleSpec) -> ModuleSpec:
    loader = spec.loader
    setattr(loader, "source_to_code", _Recheck(loader))  # type: ignore[arg-type]  # a SourceFileLoader
    return spec


def _indexed(spec: ModuleSpec, entry: index.Entry) -> ModuleSpec:
    """A plain source file the index says cannot opt in: its loader checks the entry when it
    stats the source (``_StatCheck``), and decides again on the bytes it compiles."""
    loader = spec.loader
    setattr(loader, "source_to_code", _Recheck(loader))  # type: ignore[arg-type]  # a SourceFileLoader
    setattr(loader, "path_stats", _StatCheck(entry, spec.name))
    return spec


def _trusted(entry: object) -> bool:
    """Does an entry (read from disk: may be damaged) say "cannot opt in", in a shape
    ``_StatCheck`` can compare? Anything else: the slow path decides."""
    return type(entry) is tuple and len(entry) == 3 and entry[2] == _NO and entry[0] != -1  # -1: invalidated


#: Loaders other than plain source files whose opted-in modules are rewritten too, each with
#: its pipeline. An integration adds a loader that is also its own meta-path finder (pytest's
#: assertion-rewriting hook) and removes it when done; such a finder is asked for every module,
#: whatever ``packages`` says, so the modules it owns (test files) need no package name.
OWNED_LOADERS: list[tuple[object, pipeline.Pipeline]] = []


class RewritingFinder:
    """Asks the finders after it for a spec and swaps in RewritingLoader where the header opts in."""

    def __init__(self, packages: frozenset[str] | None) -> None:
        #: Top-level names the hook looks at; None means every module.
        self.packages = packages

    @staticmethod
    def pipeline_for(spec: ModuleSpec) -> pipeline.Pipeline | None:
        """The pipeline for a module another finder found, or None to leave it alone: plain
        source files, and the loaders an integration registered in ``OWNED_LOADERS``."""
        loader = spec.loader
        if type(loader) is SourceFileLoader:
            return pipeline.DEFAULT
        return next((steps for owned, steps in OWNED_LOADERS if owned is loader), None)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        # This runs for every module imported (~550 for ``import jax``): one frame for most.
        packages = self.packages
        if packages is not None and fullname.partition(".")[0] not in packages:
            # Not ours: no lookup, no file access, unless an owned loader finds it.
            return self._find_owned(fullname, path, target) if OWNED_LOADERS else None
        meta_path = sys.meta_path
        # Only the finders after this one: never itself, so no recursion through sys.meta_path.
        if meta_path and meta_path[0] is self:
            later = meta_path[1:]
        else:
            for at, finder in enumerate(meta_path):
                if finder is self:
                    later = meta_path[at + 1 :]
                    break
            else:
                return None
        for finder in later:
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is None:
                continue  # a legacy find_module finder: the import system will ask it itself
            spec: ModuleSpec | None = find_spec(fullname, path, target)
            if spec is not None:
                origin = spec.origin
                if origin is not None and origin.endswith(".py"):
                    # Most files are settled here, by the index, and checked by the stat
                    # their loader takes anyway: _maybe_rewrite's first step, inlined, as it
                    # runs for nearly every module.
                    entry = _ENTRIES.get(origin)
                    if entry is not None and type(spec.loader) is SourceFileLoader and _trusted(entry):
                        return _indexed(spec, entry)
                    self._maybe_rewrite(spec, origin)
                return spec
        return None

    def _find_owned(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None
    ) -> ModuleSpec | None:
        """Ask only the owned loaders that are finders after this one; the spec one of them
        found is returned, rewritten or not, so the search is not repeated for it."""
        after = False
        for finder in sys.meta_path:
            if finder is self:
                after = True
            elif after and any(finder is owned for owned, _ in OWNED_LOADERS):
                spec: ModuleSpec | None = finder.find_spec(fullname, path, target)
                if spec is not None:
                    if spec.origin is not None and spec.origin.endswith(".py"):
                        self._maybe_rewrite(spec, spec.origin)
                    return spec
        return None

    def _maybe_rewrite(self, spec: ModuleSpec, origin: str) -> None:
        steps = pipeline.DEFAULT if type(spec.loader) is SourceFileLoader else self.pipeline_for(spec)
        if steps is None:
            return
        # The index settles most files, checked by their loader's own stat (see hook/index.py);
        # the first file of each folder comes here, to find where that folder's entries live.
        # Where no index exists and none can be written, the file is read exactly as it would
        # be without one: no stat.
        folder_path, _, name = origin.rpartition(os.sep)
        place = _PLACES.get(folder_path) or index.loaded_place(folder_path, spec.name, name)
        if place is None:
            # The first file of a root whose index is not read yet: that index settles only
            # files that cannot opt in, so a file with a rewritten pyc of its own is tried first.
            if self._from_cache(spec, origin, steps):
                return
            place = index.place_of(folder_path, spec.name, name)
        entry = place.entries.get(origin) if place.active else None
        if entry is not None and _trusted(entry):
            if type(spec.loader) is SourceFileLoader:
                _indexed(spec, entry)
                return
            if _settled(entry, origin):  # an owned loader's file: no stat of its own to share
                return
        # It opted in when last read: all of it is needed (a hint; checked below).
        whole = type(entry) is tuple and len(entry) == 3 and entry[2] == index.MAYBE
        # An opted-in file is read whole without a stat: its entry only ever needs one again if
        # it stopped opting in, and then it is invalidated, to be recorded by the next reader.
        # Nor is the needle looked for: its pyc's hash, or else its header, decides.
        data, key = (_read_whole(origin), None) if whole else _read_source(origin, False, place.active)
        if data is None:
            place.does_not_opt_in(origin, key, whole)
            _recheck_plain(spec)
            return
        pyc = tag.cache_path(origin, sys.flags.optimize, steps.name)
        # Only sources that opt in are ever cached, so a valid entry for these exact bytes answers
        # the header question without tokenizing: the warm path costs what a checked pyc costs.
        code = None if pyc is None else pycfile.load(pyc, importlib.util.source_hash(data), origin)
        header = None
        if code is None:
            header = _header(data)
            if header is None or not header.enabled:
                place.does_not_opt_in(origin, key, whole)
                _recheck_plain(spec)
                return
        if key is not None:
            place.record(origin, key, index.MAYBE)
        spec.loader = RewritingLoader(spec.name, origin, data, code, steps, header)
        spec.cached = pyc

    @staticmethod
    def _from_cache(spec: ModuleSpec, origin: str, steps: pipeline.Pipeline) -> bool:
        """Give ``spec`` the rewriting loader if ``origin`` has a rewritten pyc for its bytes as
        they are: only sources that opt in are cached, so a hit is the decision, and it needs
        neither the root's index nor a stat. A file without such a pyc costs one failed open."""
        pyc = tag.cache_path(origin, sys.flags.optimize, steps.name)
        if pyc is None:
            return False
        stored = pycfile.read(pyc, origin, say_why=False)
        if stored is None:
            return False
        data = _read_whole(origin)  # no needle looked for: the hash decides (~20 % of this path)
        code = None if data is None else pycfile.code_of(stored, importlib.util.source_hash(data), pyc, origin)
        if code is None:
            if data is None or not _opts_in(data):
                pycfile.discard(pyc, origin)  # else read again by every process, to learn this again
            return False
        spec.loader = RewritingLoader(spec.name, origin, data, code, steps)
        spec.cached = pyc
        return True


def _recheck_plain(spec: ModuleSpec) -> None:
    """A plain source file stays with its loader, which decides again on what it compiles."""
    if type(spec.loader) is SourceFileLoader:
        _rechecked(spec)


def _read_source(path: str, whole: bool = False, keyed: bool = False) -> tuple[bytes | None, tuple[int, int] | None]:
    """The file's bytes if it may opt in (else None), and with ``keyed`` its (mtime_ns, size)
    from before the read, for the index (None when not asked for, or unknown, or for a
    ``whole`` read: the file the index says opts in is read without a stat).

    Reading every source in full would cost ``import jax`` 2-3 %: the hook sees ~550 files and
    13 MB. A pragma only counts in the header, so a first block without the needle whose header
    provably ends inside it settles the question (unless ``whole``: the index says the file opts
    in, so all of it is needed). Bare os calls, a third of the cost of a buffered file: these
    bytes decide; what is compiled is read again by the loader, through ``io.open_code``, and
    decided on again (RewritingLoader, _Recheck) unless they are these very bytes.
    """
    if whole:  # no stat is asked for with a whole read
        data = _read_whole(path)
        return (data if data is not None and might_opt_in(data) else None), None
    key = None
    try:
        fd = os.open(path, _O_FLAGS)
        try:
            size = -1
            if keyed:
                st = os.fstat(fd)
                key, size = (st.st_mtime_ns, st.st_size), st.st_size
            head, complete = _read_head(fd)
            if not might_opt_in(head) if complete else head_rules_out(head):
                return None, key
            data = head if complete else _read_rest(fd, head, size)
        finally:
            os.close(fd)
    except OSError:
        return None, None  # the normal loader will report it
    return (data if might_opt_in(data) else None), key


def _read_whole(path: str) -> bytes | None:
    """All of the file's bytes (None where it cannot be read), in a buffer of its size (a fresh
    64 KiB one cost ~5 us of page faults). Bytes a hash-checked pyc decides on are read so, with
    no needle looked for: that would only scan them once more."""
    try:
        fd = os.open(path, _O_FLAGS)
        try:
            return _read_rest(fd, b"", os.fstat(fd).st_size)
        finally:
            os.close(fd)
    except OSError:
        return None


def _read_head(fd: int) -> tuple[bytes, bool]:
    """Up to ``_BLOCK`` bytes from the start of the file, and whether that is all of it."""
    head = os.read(fd, _BLOCK)
    while len(head) < _BLOCK:
        more = os.read(fd, _BLOCK - len(head))
        if not more:
            return head, True
        head += more
    return head, False


def _read_rest(fd: int, data: bytes, size: int) -> bytes:
    """``data`` (what was read so far) and the rest of the file, to its end; ``size`` (from
    ``fstat``, or -1) only sizes the reads: after a short one, the end is confirmed by a read
    of one byte, not of a fresh 64 KiB buffer."""
    want = size - len(data) + 1 if size >= len(data) else _CHUNK
    while True:
        more = os.read(fd, want)
        if not more:
            return data
        data += more
        want = 1 if len(more) < want else _CHUNK


_BLOCK = 8192
_CHUNK = index.CHUNK
# Bound once: find_spec's fast path runs for nearly every module Python imports.
def _settled(entry: index.Entry, origin: str) -> bool:
    """Does the stat of ``origin`` still match its entry (``_trusted``)? A file gone: False."""
    try:
        st = _stat(origin)
    except OSError:
        return False
    return entry[0] == st.st_mtime_ns and entry[1] == st.st_size


_ENTRIES = index.ENTRIES
_PLACES = index.PLACES
_NO = index.NO
_stat = os.stat
_O_FLAGS = index.O_FLAGS


def _opts_in(data: bytes) -> bool:
    """Whether a file's bytes opt in: their header enables the rewrite."""
    header = _header(data)
    return header is not None and header.enabled


def _header(data: bytes) -> Header | None:
    """The header of a file's text; None when undecodable (the normal loader then raises the
    error Python users expect). Handed to the loader so the header is read once per import."""
    try:
        return scan_header(importlib.util.decode_source(data))
    except (SyntaxError, UnicodeDecodeError):
        return None


class HookHandle:
    """What ``install`` returns; ``uninstall()`` or leaving the ``with`` block withdraws this install."""

    def __init__(self, packages: frozenset[str] | None) -> None:
        self.packages = packages

    def uninstall(self) -> None:
        """Withdraw this install; the hook stays while other installs are live. Idempotent."""
        if self in _live:
            _live.remove(self)
            _sync()

    def __enter__(self) -> HookHandle:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.uninstall()


_live: list[HookHandle] = []
_finder: RewritingFinder | None = None


def install(packages: Iterable[str] | None = None) -> HookHandle:
    """Rewrite opted-in modules imported from now on; ``packages`` limits that to those top-level names.

    There is only ever one finder. Installs add up: the hook covers the union of what every live
    install asked for (``None`` meaning everything) until that install is withdrawn through its
    handle, or all of them at once through ``uninstall()``.
    """
    if packages is None:
        names = None
    else:
        names = frozenset([packages] if isinstance(packages, str) else packages)
        bad = sorted(name for name in names if not name.isidentifier())
        if bad:
            raise ValueError(f"install() takes top-level package names, not {bad!r}")
    handle = HookHandle(names)
    _live.append(handle)
    _sync()
    return handle


def installed() -> frozenset[str] | None | bool:
    """What the live hook covers (a set of top-level packages, or None for every module), or
    False when no hook is installed."""
    return False if _finder is None else _finder.packages


def uninstall() -> None:
    """Remove the hook entirely; every other entry of ``sys.meta_path`` stays where it is."""
    _live.clear()
    _sync()


def _sync() -> None:
    """Make ``sys.meta_path`` and the finder's package filter agree with the live installs."""
    global _finder
    notrewritten.HOOKED = bool(_live)
    if not _live:
        if _finder is not None:
            sys.meta_path[:] = [f for f in sys.meta_path if f is not _finder]
            _finder = None
        return
    wanted = [handle.packages for handle in _live]
    packages = None if None in wanted else frozenset(name for names in wanted if names for name in names)
    if _finder is None:
        # Other tools' source loaders compile the rewrite too (hook/compose.py).
        compose.enable(lambda: _finder, RewritingLoader, _read_source, _header)
        _finder = RewritingFinder(packages)
    else:
        _finder.packages = packages
    if not any(f is _finder for f in sys.meta_path):
        sys.meta_path.insert(0, _finder)
