"""``[tool.jaxrewrite]`` in pyproject.toml, found as ruff finds its own: the nearest one with the
table from the cwd upward, or ``--config``. Globs follow ruff: without ``/`` a pattern matches a
name anywhere below; with one, the path from the configuration's folder. Read by the commands
and the pytest plugin only: ``import jaxrewrite`` opens no file for it.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

#: Every key of ``[tool.jaxrewrite]``, with what its value must be: the data the reader checks.
KEYS: dict[str, str] = {
    "select": "a list of codes or code prefixes",
    "ignore": "a list of codes or code prefixes",
    "exclude": "a list of glob patterns",
    "per-file-ignores": "a table of glob pattern = list of codes or code prefixes",
    "packages": "a list of top-level package names",
    "cache-dir": "a folder path (relative to the configuration's folder) for check's cache",
}


class ConfigError(Exception):
    """The configuration cannot be read or holds something jaxrewrite does not know; one line."""


@dataclass(frozen=True)
class Config:
    """One ``[tool.jaxrewrite]`` table (``check`` overrides its select and ignore)."""

    #: The file read, or None when none was found.
    path: str | None = None
    #: The folder relative paths in patterns start from: the file's folder (or the cwd).
    root: str = "."
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    packages: tuple[str, ...] = ()
    cache_dir: str = ""

    def wants(self, code: str, path: str | None = None) -> bool:
        """Is ``code`` reported (in the file at ``path``, for ``per-file-ignores``)?"""
        if self.select and not code.startswith(self.select):
            return False
        ignore = [
            c
            for pattern, codes in self.per_file_ignores
            for c in codes
            if path is not None and matches(pattern, path, self.root)
        ]
        return not code.startswith((*self.ignore, *ignore))


def matches(pattern: str, path: str, root: str) -> bool:
    """Does a ruff-style glob ``pattern`` (see the module docstring) match ``path``?"""
    pattern = pattern.replace(os.sep, "/").rstrip("/")
    if "/" not in pattern:
        return fnmatch.fnmatchcase(os.path.basename(os.path.normpath(path)), pattern)
    full = os.path.abspath(path).replace(os.sep, "/")
    anchored = os.path.abspath(os.path.join(root, pattern)).replace(os.sep, "/")
    return fnmatch.fnmatchcase(full, anchored) or fnmatch.fnmatchcase(full, anchored + "/*")


def discover(start: str | None = None, explicit: str | None = None) -> Config:
    """The configuration in force: ``explicit`` (``--config``) or the one found from ``start``."""
    if explicit is not None:
        if not os.path.isfile(explicit):
            raise ConfigError(f"{explicit}: no such configuration file")
        return _load(explicit, _tool(explicit).get("jaxrewrite", {}))
    here = folder = os.path.abspath(os.getcwd() if start is None else start)
    while True:  # the nearest pyproject.toml with a [tool.jaxrewrite] table, upward
        candidate = os.path.join(folder, "pyproject.toml")
        table = _tool(candidate).get("jaxrewrite") if os.path.isfile(candidate) else None
        if table is not None:
            return _load(candidate, table)
        if os.path.dirname(folder) == folder:
            return Config(root=here)
        folder = os.path.dirname(folder)


def _load(path: str, table: Any) -> Config:
    where = f"{path}: [tool.jaxrewrite]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        known = ", ".join(sorted(KEYS))
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known keys: {known})")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{where}: 'per-file-ignores' must be {KEYS['per-file-ignores']}")
    packages = _strings(table, "packages", where)
    bad = [name for name in packages if not name.isidentifier()]
    if bad:
        raise ConfigError(f"{where}: 'packages' takes top-level package names, not {bad[0]!r}")
    cache_dir = table.get("cache-dir", "")
    if not isinstance(cache_dir, str):
        raise ConfigError(f"{where}: 'cache-dir' must be {KEYS['cache-dir']}")
    return Config(
        path=path,
        root=os.path.dirname(os.path.abspath(path)),
        select=codes(_strings(table, "select", where)),
        ignore=codes(_strings(table, "ignore", where)),
        exclude=_strings(table, "exclude", where),
        per_file_ignores=tuple(
            (
                str(pattern),
                codes(_strings(per_file, pattern, f"{where}.per-file-ignores", KEYS["select"])),
            )
            for pattern in per_file
        ),
        packages=packages,
        cache_dir=cache_dir,
    )


def codes(values: Iterable[str]) -> tuple[str, ...]:
    """Codes as written, upper-cased; a retired code stands for its successor, as in a noqa."""
    from jaxrewrite.engine.rulebook.rules import RETIRED

    found = (code.strip().upper() for value in values for code in value.split(",") if code.strip())
    return tuple(RETIRED.get(code, code) for code in found)


def exclusions(config: Config, given: Iterable[str]) -> list[tuple[str, str]]:
    """``(pattern, root)`` pairs: the configuration's from its folder, ``--exclude``'s
    from the cwd."""
    patterns = [(pattern, config.root) for pattern in config.exclude]
    return patterns + [
        (word.strip(), ".") for value in given for word in value.split(",") if word.strip()
    ]


def _strings(
    table: dict[str, Any], key: str, where: str, what: str | None = None
) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        hint = f" ([{value!r}], not {value!r})" if isinstance(value, str) else ""  # ruff's rule too
        raise ConfigError(f"{where}: {key!r} must be {what or KEYS[key]}{hint}")
    return tuple(value)


def _tool(path: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10: the tomli backport (setup.cfg's install_requires)
        import tomli as tomllib
    try:
        with open(path, "rb") as file:
            tool = tomllib.load(file).get("tool", {})
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: [tool] must be a table")
    return tool
