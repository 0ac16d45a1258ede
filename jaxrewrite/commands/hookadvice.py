"""What a migrated file needs afterwards, said after ``migrate --write``: the import hook.

A script runs with ``python -m jaxrewrite``; a package (a library others import without any hook)
installs it itself, ``jaxrewrite.install(packages=[__name__])`` at the top of its ``__init__.py``,
which ``--install-hook`` writes there through the atomic writer, once.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Sequence
from typing import TextIO

from jaxrewrite.commands.files import read_python, write_atomically

#: The lines ``--install-hook`` writes into a package's ``__init__.py``.
INSTALL_IMPORT = "import jaxrewrite"
INSTALL_LINE = "jaxrewrite.install(packages=[__name__])"


def top_package(path: str) -> str | None:
    """The folder of the top-level package ``path`` lies in, or None."""
    folder = os.path.dirname(os.path.abspath(path))
    top = None
    while (
        os.path.isfile(os.path.join(folder, "__init__.py"))
        and os.path.basename(folder).isidentifier()
    ):
        top = folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return top


def hook_notes(changed: Sequence[str], install_hook: bool, err: TextIO) -> None:
    """After ``--write``: the migrated files mean what they did only under the import hook."""
    packages = sorted({top for top in map(top_package, changed) if top is not None})
    scripts = [path for path in changed if top_package(path) is None]
    print(
        "note: the migrated files now need the jaxrewrite import hook; run without it (`python "
        "script.py`, as before) their Static parameters are traced (ConcretizationTypeError). Run "
        "a script with `python -m jaxrewrite script.py` (or `python -m jaxrewrite -m pytest`), or "
        "call `jaxrewrite.install()` before importing the migrated modules.",
        file=err,
    )
    if scripts and not packages:
        return
    for folder in packages:
        name = os.path.basename(folder)
        init = shown(os.path.join(folder, "__init__.py"))
        if _has_install(init):
            print(f"note: package {name!r} installs the hook in {init} already", file=err)
            continue
        what = (
            f"`{INSTALL_LINE}` is being added at the top of {init}"
            if install_hook
            else f"add `{INSTALL_IMPORT}` and `{INSTALL_LINE}` at the top of {init} "
            "(--install-hook writes them)"
        )
        print(
            f"note: package {name!r} is a library, imported by code that installs no hook: {what}, "
            "and add jaxrewrite to its dependencies; its own tests: `pytest "
            f"--jaxrewrite-packages={name}` "
            f'(or the jaxrewrite_packages ini option, or packages = ["{name}"] in '
            "[tool.jaxrewrite]).",
            file=err,
        )


def shown(path: str) -> str:
    """A path as messages print it: relative to the cwd below it, else absolute."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def _has_install(init: str) -> bool:
    try:
        with open(init, "rb") as file:
            return b"jaxrewrite.install(" in file.read()
    except OSError:
        return False


def with_install_line(text: str) -> str:
    """``text`` (a package's ``__init__.py``) with the install line after its docstring and
    ``from __future__`` imports, before anything that imports a submodule."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    body = ast.parse(text).body
    after = 0
    for index, stmt in enumerate(body):
        value = stmt.value if isinstance(stmt, ast.Expr) else None
        docstring = index == 0 and isinstance(value, ast.Constant) and isinstance(value.value, str)
        future = isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
        if not (docstring or future):
            break
        after = stmt.end_lineno or after
    if lines and after and not lines[after - 1].endswith(("\n", "\r")):
        lines[after - 1] += newline
    insert = [
        f"{INSTALL_IMPORT}{newline}",
        f"{INSTALL_LINE}  # Static/NoDiff in this package need the hook{newline}",
    ]
    if after:
        insert.insert(0, newline)
    if after < len(lines) and lines[after].strip():
        insert.append(newline)
    return "".join(lines[:after] + insert + lines[after:])


def install_hooks(changed: Sequence[str], err: TextIO) -> int:
    """``--install-hook``: the install line in each changed package's ``__init__.py``; errors."""
    errors = 0
    for folder in sorted({top for top in map(top_package, changed) if top is not None}):
        init = os.path.join(folder, "__init__.py")
        if _has_install(init):
            continue
        try:
            text, encoding = read_python(init)
            write_atomically(init, with_install_line(text).encode(encoding))
        except (OSError, SyntaxError, ValueError, LookupError) as exc:
            print(f"{shown(init)}: cannot add the install line: {exc}", file=err)
            errors += 1
            continue
        print(f"{shown(init)}: added `{INSTALL_LINE}`", file=err)
    return errors
