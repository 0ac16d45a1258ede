"""The one exception jaxrewrite raises for misuse, so callers can catch it as a SyntaxError."""

from __future__ import annotations

import ast
import warnings

#: RewriteError's arguments, as attributes of the error.
_FIELDS = ("message", "filename", "lineno", "offset", "text", "end_lineno", "end_offset", "code")


class RewriteError(SyntaxError):
    """Misuse of a jaxrewrite marker: a SyntaxError, so that tracebacks and editors show it where
    the offending annotation or decorator is written."""

    def __init__(
        self,
        msg: str,
        filename: str,
        lineno: int,
        offset: int,
        text: str | None = None,
        end_lineno: int | None = None,
        end_offset: int | None = None,
        code: str = "JR100",
    ) -> None:
        # ``msg`` is what tracebacks print after the class name, so it leads with the code, as
        # ``jaxrewrite check`` prints a finding; ``message`` is the text alone.
        super().__init__(f"{code} {msg}", (filename, lineno, offset, text, end_lineno, end_offset))
        self.code = code
        self.message = msg

    def __str__(self) -> str:
        """``path:line:col: CODE message``: the one form of a finding (``Diagnostic.format``)."""
        where = location(self.filename or "<unknown>", self.lineno or 1, self.offset or 1)
        return f"{where}: {self.code} {self.message}"

    def __reduce__(self):  # type: ignore[no-untyped-def]
        # Keep the location across pickling (multiprocessing, pytest-xdist).
        return type(self), tuple(getattr(self, name) for name in _FIELDS)

    @classmethod
    def at(
        cls, node: ast.AST, code: str, msg: str, filename: str, lines: list[str]
    ) -> RewriteError:
        """The error at an AST node, with the offending source line as ``text``."""
        lineno = getattr(node, "lineno", 1)
        text = _line(lines, lineno)
        end_lineno = getattr(node, "end_lineno", None)
        end_col = getattr(node, "end_col_offset", None)
        end_offset = None
        if end_col is not None and end_lineno is not None:
            end_offset = _char_offset(_line(lines, end_lineno), end_col) + 1
        offset = _char_offset(text, getattr(node, "col_offset", 0)) + 1
        return cls(msg, filename, lineno, offset, text, end_lineno, end_offset, code)


def location(filename: object, line: object, col: object = None) -> str:
    """``path:line:col`` (``path:line`` without a column): how every finding names its place,
    RewriteError and ``jaxrewrite.engine.rulebook.diagnostics.Diagnostic`` alike."""
    return f"{filename}:{line}" if col is None else f"{filename}:{line}:{col}"


def _line(lines: list[str], lineno: int) -> str | None:
    return lines[lineno - 1] if 0 < lineno <= len(lines) else None


def _char_offset(text: str | None, byte_col: int) -> int:
    """AST columns count UTF-8 bytes; users (and SyntaxError.offset) count characters."""
    if text is None:
        return byte_col
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


#: What Python's parser raises for a module nested too deeply (MemoryError: 3.12 and later).
TOO_DEEP = (RecursionError, MemoryError)


def too_deep(exc: BaseException, text: str, filename: str) -> SyntaxError:
    """What the commands report for a module whose parse ran out of depth: a SyntaxError at 1:1
    saying whether Python compiles the text itself (were it ever jaxrewrite's own limit, the
    message says so instead of blaming the file)."""
    why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    try:
        compile(text, filename, "exec", dont_inherit=True)
    except SyntaxError as err:
        return err
    except TOO_DEEP:
        msg = f"too deeply nested for Python's parser ({why}): Python cannot compile it either"
    else:
        msg = (
            f"too deeply nested for jaxrewrite to analyze ({why}), though Python compiles it: "
            "please report it"
        )
    return SyntaxError(msg, (filename, 1, 1, None))


class RewriteWarning(UserWarning):
    """Something in an opted-in module that jaxrewrite ignores but the user probably meant."""


#: A module's warnings as (message, line): issued when it is rewritten, and kept by the import
#: hook with its cached code so that a warm import says them again (hook/pycfile.py).
Notes = tuple[tuple[str, int], ...]


def say(notes: Notes, filename: str) -> None:
    """Issue each note as a RewriteWarning at its line of ``filename``."""
    for message, line in notes:
        warnings.warn_explicit(message, RewriteWarning, filename, line)


class NotRewrittenWarning(RewriteWarning):
    """A module uses Static/NoDiff where the rewrite would act, but it runs un-rewritten.

    Fatal with ``python -W error::jaxrewrite.NotRewrittenWarning`` (the import then fails).
    """
