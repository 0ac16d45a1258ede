"""What the cache tag is a digest of, and the digest itself; importable alone (it imports nothing
of jaxrewrite), so that building a wheel (setup.py) can write the digests into it.

Why a wheel carries them (``BUILT``): a checkout is edited in place under the same version, so a
process there checks its digests' ~65 stats once (hook/tag.py's memo), a quarter of a millisecond
on the first opted-in import. An installed wheel is not edited in place: its files are replaced
by reinstalling, which replaces them too. So an install takes the digests it was built with,
as pytest's assertion rewriting takes its version, and checks nothing: the digests are of the
files' contents as built (a test compares them with hashing the installed files), never of their
stats. They are a constant of the ``jaxrewrite.hook`` package itself, which every import of the
hook has loaded already: no file is opened for them (a file of their own cost the first opted-in
import ~20 us). ``blake2b``, not ``source_hash``: one digest for every Python a wheel is
installed on.
"""

from __future__ import annotations

import hashlib
import os

#: What determines the code the hook caches: the engine (every file the rewrite can import;
#: tests/test_cache.py checks that against what a rewrite really loads), the pipelines that
#: compile it and the default one's fast route (hook/fast), the pyc format and its naming, this
#: digest, and the version. The commands, the run-time helpers and the rest of the package do not
#: change a cached module's code, so editing them must not cost every cached module a cold rewrite.
REWRITE_SOURCES = (
    "engine",
    "header.py",
    "hook/digest.py",
    "hook/tag.py",
    "hook/pycfile.py",
    "hook/pipeline.py",
    "hook/fast",
    "integrations/pytest_plugin.py",
    "version.py",
)
#: Engine files no rewrite imports (none since migrate became its own layer, ``jaxrewrite/migrate``).
NOT_REWRITE: frozenset[str] = frozenset()
#: What decides whether a file opts in without rewriting it: the pragma scanner, and the finder
#: and index that apply it. The folder indexes (hook/index.py) are keyed by their digest, so an
#: index written by another scanner is never trusted; editing these costs no cached module.
SCANNER_SOURCES = ("header.py", "hook/digest.py", "hook/finder.py", "hook/index.py", "version.py")
#: Both, each searched once.
ALL_SOURCES = tuple(dict.fromkeys(REWRITE_SOURCES + SCANNER_SOURCES))

#: The digests a built wheel carries: ``BUILT = (<version>, <rewriter>, <scanner>)``, a line the
#: build adds to the ``hook`` package's ``__init__.py`` (not a source of either digest).
BUILT = "BUILT"
_CARRIER = "__init__.py"
_BUILT_COMMENT = "#: Written by the build (setup.py, hook/digest.py): the version and the cache tag's digests."


def walk(root: str, entries: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The ``.py`` files of ``entries`` under ``root`` (folders searched), as sorted
    ``/``-separated relative paths, and what else a memo of their stats must watch: the folders
    searched (a new file changes their mtime) and the named files that do not exist."""
    found: list[str] = []
    watched: list[str] = []
    for entry in entries:
        path = os.path.join(root, *entry.split("/"))
        if not os.path.isdir(path):
            (found if os.path.exists(path) else watched).append(entry)
            continue
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            rel = os.path.relpath(folder, root).replace(os.sep, "/")
            watched.append(rel)
            found.extend(f"{rel}/{name}" for name in files if name.endswith(".py"))
    # A file named in ``entries`` and inside a folder of them too is listed (and statted) once.
    return sorted({name for name in found if name not in NOT_REWRITE}), sorted(set(watched))


def digests(version: str, sources: list[str], bodies: dict[str, bytes]) -> tuple[str, str]:
    """(rewriter, scanner): the digests of ``REWRITE_SOURCES`` and of ``SCANNER_SOURCES`` among
    ``sources`` (their ``bodies`` by name), each with the version."""
    return (
        _digest(version, [name for name in sources if _covered(name, REWRITE_SOURCES)], bodies),
        _digest(version, [name for name in sources if _covered(name, SCANNER_SOURCES)], bodies),
    )


def _covered(name: str, entries: tuple[str, ...]) -> bool:
    return any(name == entry or name.startswith(entry + "/") for entry in entries)


def _digest(version: str, names: list[str], bodies: dict[str, bytes]) -> str:
    parts = [version.encode()]
    for name in names:
        body = bodies[name]
        key = name.encode()
        parts.append(b"%d:%s:%d:%s" % (len(key), key, len(body), body))
    return hashlib.blake2b(b"".join(parts), digest_size=8).hexdigest()


def of_tree(root: str, version: str) -> tuple[str, str]:
    """The digests of the package at ``root``, hashing its files: what a build writes."""
    sources, _ = walk(root, ALL_SOURCES)
    bodies = {}
    for name in sources:
        with open(os.path.join(root, *name.split("/")), "rb") as file:
            bodies[name] = file.read()
    return digests(version, sources, bodies)


def bake(root: str, version: str) -> str:
    """Write the digests of the package at ``root`` into its ``hook/__init__.py`` (``BUILT``),
    replacing any a previous build of the same folder wrote; returns the path."""
    rewriter, scanner = of_tree(root, version)
    path = os.path.join(root, "hook", _CARRIER)
    with open(path, encoding="utf-8") as file:
        lines = [line for line in file.read().splitlines() if line != _BUILT_COMMENT and not line.startswith(f"{BUILT} = ")]
    lines += [_BUILT_COMMENT, f"{BUILT} = {(version, rewriter, scanner)!r}"]
    with open(path, "w", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")
    return path


def built(carried: object, version: str) -> tuple[str, str] | None:
    """The (rewriter, scanner) digests a package carries (its ``hook.BUILT``, or None) if they are
    a build's of ``version``; None in a checkout or an editable install (nothing carried), for
    another version, or for anything not in the build's shape."""
    if type(carried) is not tuple or len(carried) != 3 or carried[0] != version:
        return None
    digests = carried[1:]
    if not all(type(d) is str and len(d) == 16 and not d.strip("0123456789abcdef") for d in digests):
        return None
    return digests[0], digests[1]
