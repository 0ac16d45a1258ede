"""The cache tag: which rewriter wrote a pyc (a digest of the sources that decide the rewritten
code, with the version), the pipeline and the optimisation level; read by nothing but the hook.

A checkout digests its sources once per process; a wheel carries the digest it was built with
(``BUILT``, a line setup.py adds to ``hook/__init__.py``). Importable alone (stdlib only), so
that setup.py can bake the digest.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import sys

#: What decides the code the hook caches (editing anything else costs no cold rewrite).
REWRITE_SOURCES = (
    "engine",
    "header.py",
    "hook/cachetag.py",
    "hook/pycfile.py",
    "integrations/pytest_plugin.py",
    "version.py",
)
#: The package folder.
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILT = "BUILT"
_BUILT_COMMENT = (
    "#: Written by the build (setup.py, hook/cachetag.py): the version and the rewriter's digest."
)


def package_sources(root: str = PACKAGE) -> list[str]:
    """The ``.py`` files of ``REWRITE_SOURCES`` under ``root``, ``/``-separated."""
    found = []
    for entry in REWRITE_SOURCES:
        path = os.path.join(root, *entry.split("/"))
        if os.path.isfile(path):
            found.append(entry)
        for folder, dirs, files in os.walk(path):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            rel = os.path.relpath(folder, root).replace(os.sep, "/")
            found.extend(f"{rel}/{name}" for name in files if name.endswith(".py"))
    return sorted(set(found))


def of_tree(root: str, version: str) -> str:
    """The digest of the rewriter at ``root``: its sources' names and bytes, and the version."""
    parts = [version.encode()]
    for name in package_sources(root):
        with open(os.path.join(root, *name.split("/")), "rb") as file:
            body = file.read()
        parts.append(b"%d:%s:%d:%s" % (len(name), name.encode(), len(body), body))
    return hashlib.blake2b(b"".join(parts), digest_size=8).hexdigest()


def bake(root: str, version: str) -> str:
    """Write the digest of the package at ``root`` into its ``hook/__init__.py``; the path."""
    path = os.path.join(root, "hook", "__init__.py")
    with open(path, encoding="utf-8") as file:
        lines = [
            ln
            for ln in file.read().splitlines()
            if ln != _BUILT_COMMENT and not ln.startswith(BUILT)
        ]
    lines += [_BUILT_COMMENT, f"{BUILT} = {(version, of_tree(root, version))!r}"]
    with open(path, "w", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")
    return path


def built(carried: object, version: str) -> str | None:
    """The digest a package carries (its ``hook.BUILT``) if a build of ``version`` wrote it."""
    if type(carried) is tuple and len(carried) == 2 and carried[0] == version:
        found = carried[1]
        if type(found) is str and len(found) == 16 and not found.strip("0123456789abcdef"):
            return found
    return None


@functools.cache
def rewriter_hash() -> str:
    """The build's digest, or the checkout's sources hashed once (OSError: no cache)."""
    from jaxrewrite import hook
    from jaxrewrite.hook.pycfile import trace
    from jaxrewrite.version import __version__

    found = built(getattr(hook, BUILT, None), __version__)
    if found is None:
        trace(f"hashed {len(package_sources())} jaxrewrite sources under {PACKAGE}")
    return found or of_tree(PACKAGE, __version__)


def cache_tag(optimize: int | None = None, pipeline: str = "") -> str | None:
    """The ``opt-`` part of the hook's pyc names; None where the rewriter cannot be hashed."""
    try:
        digest = rewriter_hash()
    except OSError:
        return None
    return f"jaxrewrite{digest}{pipeline}o{sys.flags.optimize if optimize is None else optimize}"


def cache_path(source_path: str, optimize: int | None = None, pipeline: str = "") -> str | None:
    """Where the hook's pyc of ``source_path`` lives, or None where there is no bytecode cache."""
    tag = cache_tag(optimize, pipeline)
    if tag is None:
        return None
    try:
        return importlib.util.cache_from_source(source_path, optimization=tag)
    except NotImplementedError:
        return None
