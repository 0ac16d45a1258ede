"""The ``jaxrewrite`` command: run a program as ``python`` would, with the import hook installed,
or one of the command words; options are read only before the program name, as ``python`` does.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from functools import partial

from jaxrewrite.version import __version__

#: A program to run: python's option for its kind (``-c``, ``-m``, or ``--`` for a script), target,
#: argv and ``--packages``.
Run = tuple[str, str, list[str], tuple[str, ...]]


def usage(prog: str) -> str:
    lines = [
        f"usage: {prog} [-h] [--version] [--] SCRIPT [ARGS ...]",
        f"       {prog} -m MODULE [ARGS ...]",
        f"       {prog} -c CODE [ARGS ...]",
    ]
    lines.extend(f"       {prog} {word} {usage}" for word, (usage, _) in SUBCOMMANDS.items())
    return "\n".join(lines) + "\n"


def help_text(prog: str) -> str:
    return usage(prog) + (
        "\n"
        "Run a Python program with the jaxrewrite import hook installed, or show what it "
        "rewrites.\n"
        "\n"
        "  SCRIPT [ARGS ...]     run SCRIPT as `python SCRIPT ARGS` would (a directory or zip\n"
        "                        file runs its __main__.py); SCRIPT is rewritten if it opts in\n"
        "  -m MODULE [ARGS ...]  run library module MODULE as `python -m MODULE ARGS` would\n"
        "  -c CODE [ARGS ...]    run CODE as `python -c CODE ARGS` would (rewritten if it opts "
        "in)\n"
        "  --packages PKG[,PKG]  also rewrite the opted-in modules of these installed packages\n"
        + "".join(text for _, text in SUBCOMMANDS.values())
        + "  --                    the next argument is SCRIPT even if it looks like an option or "
        "is\n"
        f"                        one of the command words ({', '.join(SUBCOMMANDS)})\n"
        "  -h, --help            show this help and exit\n"
        "  --version             print the version and exit\n"
        "\n"
        "Options are read only before SCRIPT or MODULE; later arguments go to the program.\n"
    )


def parse(argv: Sequence[str], prog: str) -> Run | Callable[[], int]:
    """A program to run, or a callable for the rest; never runs or imports user code."""
    if not argv:
        return partial(_done, 2, err=usage(prog))
    first, rest = argv[0], list(argv[1:])
    if first in ("-h", "--help"):
        return partial(_done, 0, out=help_text(prog))
    if first == "--version":
        return partial(_done, 0, out=f"jaxrewrite {__version__}\n")
    if first in SUBCOMMANDS:
        return partial(_command, first, rest, prog)
    if first == "--packages" or first.startswith("--packages="):
        # Installed packages whose opted-in modules are rewritten too (the hook reads the
        # interpreter's installation only for the packages named).
        value = first.partition("=")[2] if "=" in first else (rest.pop(0) if rest else "")
        names = tuple(name.strip() for name in value.split(",") if name.strip())
        command = parse(rest, prog)
        if not names or not all(name.isidentifier() for name in names):
            err = f"{prog}: --packages takes top-level package names (PKG[,PKG...])\n"
            return partial(_done, 2, err=err)
        if isinstance(command, tuple):
            return (*command[:3], (*command[3], *names))
        return command
    if first in ("-m", "-c", "--"):
        if not rest:
            what = f"the {first} option" if first != "--" else "--"
            return partial(_done, 2, err=f"{prog}: argument expected after {what}\n{usage(prog)}")
        return (first, rest[0], rest[1:], ())
    if first.startswith(("-c", "-m")):
        return (first[:2], first[2:], rest, ())
    if first == "-":
        return partial(_done, 2, err=f"{prog}: reading the program from stdin is not supported\n")
    if first.startswith("-"):
        hint = "interpreter options go first: python [OPTIONS] -m jaxrewrite ..."
        return partial(_done, 2, err=f"{prog}: unknown option {first!r} ({hint})\n{usage(prog)}")
    return ("--", first, rest, ())


#: Every command word (a word where a script name could go; ``--`` runs a script so named), with
#: its usage and help lines: a new command is a new row and a ``commands/<word>.py`` with ``main``.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "show": (
        "[--diff] TARGET ...",
        "  show TARGET ...       print the source the hook compiles for TARGET (a file path or a\n"
        "                        dotted module name, found without importing anything); --diff\n"
        "                        prints a unified diff against the file instead\n",
    ),
    "check": (
        "[--format {text,json,github}] [--select CODES] [--ignore CODES] [--exclude PATTERN]\n"
        "             [--fix [--diff]] [--no-cache] [-q] [--config PYPROJECT] [--stdin-filename "
        "NAME]\n"
        "             [--explain CODE] [PATH ... | -]",
        "  check [PATH ...]      report Static/NoDiff annotations that would do nothing or be\n"
        "                        refused (files, folders searched for .py files, default .; - for\n"
        "                        stdin); exit 1 on findings; see `check --help`\n",
    ),
    "migrate": (
        "[--diff | --check | --write [--install-hook]] PATH ...",
        "  migrate PATH ...      turn hand-written static_argnums/static_argnames into Static\n"
        "                        annotations where the meaning stays the same; prints a diff\n"
        "                        (--diff), only the exit status (--check), or rewrites the\n"
        "                        files (--write); see `migrate --help`\n",
    ),
    "compile": (
        "[-O LEVEL[,LEVEL...]] [-q] [-m PACKAGE] [PATH ...]",
        "  compile PATH ...      write the hook's cache for every opted-in module ahead of time\n"
        "                        (files, folders, or -m PACKAGE found without importing it), for\n"
        "                        read-only installs; exit 1 if one fails; see `compile --help`\n",
    ),
}


#: The exit status when the reader of a command's output goes away first (``show ... | head``):
#: what a shell reports for ``cat`` ended by SIGPIPE, and none of the commands' own 0, 1, 2.
BROKEN_PIPE = 128 + 13


def main(argv: Sequence[str] | None = None, prog: str = "jaxrewrite") -> int:
    """Entry point; returns the exit status. Running a program takes over this process."""
    command = parse(sys.argv[1:] if argv is None else argv, prog)
    if isinstance(command, tuple):
        from jaxrewrite.commands import run as runner

        # The program's own output is the program's: a broken pipe there is its to handle.
        return runner.run(*command[:3], prog, command[3])
    # What the commands print themselves (findings, summaries) names identifiers and paths: one
    # the terminal's encoding lacks is escaped, as Python escapes it on stderr, never a crash.
    # Source text and diffs go out as bytes in the file's own encoding (commands/files.py).
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")
    try:
        status = command()
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # Point stdout at devnull, so that the flush at exit cannot fail again with "Exception
        # ignored ... BrokenPipeError" (the recipe in Python's signal docs).
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (AttributeError, OSError, ValueError):
            pass
        return BROKEN_PIPE


def _done(status: int, out: str = "", err: str = "") -> int:
    sys.stdout.write(out)
    sys.stderr.write(err)
    return status


def _command(word: str, argv: list[str], prog: str) -> int:
    """One of jaxrewrite's own commands: ``jaxrewrite.commands.<word>.main``."""
    import importlib

    from jaxrewrite.config import ConfigError

    try:
        status: int = importlib.import_module(f"jaxrewrite.commands.{word}").main(argv, prog)
    except SystemExit as exc:  # argparse has printed its help or its error
        return exc.code if isinstance(exc.code, int) else 2
    except ConfigError as exc:  # a configuration that cannot be read is a usage error
        print(f"{prog} {word}: {exc}", file=sys.stderr)
        return 2
    return status
