"""Findings as values, with a stable code and a location: a RewriteError raised in the analysis
of one use is recorded so, and one bad use never hides another (the hook raises the first,
``check`` reports them all). Every front end prints a finding through ``Diagnostic.format``."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jaxrewrite.engine.rulebook.rules import RETIRED, RULES, SYNTAX, Rule, Severity
from jaxrewrite.errors import RewriteError, location

if TYPE_CHECKING:
    import ast

    from jaxrewrite.engine.read.source import Source


@dataclass(frozen=True)
class Diagnostic:
    """One finding: ``line``/``col`` are 1-based, ``col`` counts characters (as in SyntaxError)."""

    code: str
    message: str
    filename: str
    line: int
    col: int
    end_line: int | None = None
    end_col: int | None = None
    #: The source line, for a caret display.
    text: str | None = None
    #: The id of the node it was raised at, while its tree lives (``Source.error``; the ledger's).
    about: int | None = field(default=None, compare=False, repr=False)

    @property
    def is_error(self) -> bool:
        """The rule's severity says so (a SyntaxError's JR100 included)."""
        rule = RULES.get(self.code)
        return rule is not None and rule.severity is Severity.ERROR

    @classmethod
    def at(
        cls, src: Source, node: ast.AST, rule: Rule, variant: str = "", /, **fields: Any
    ) -> Diagnostic:
        """The finding of ``rule`` at ``node``, its message filled with ``fields``."""
        return cls.from_error(rule.error(src, node, variant, **fields))

    @classmethod
    def from_error(cls, err: SyntaxError, code: str | None = None) -> Diagnostic:
        return cls(
            code or getattr(err, "code", None) or SYNTAX.code,
            str(getattr(err, "message", err.msg)),  # a RewriteError's msg leads with its code
            err.filename or "<unknown>",
            err.lineno or 1,
            err.offset or 1,
            err.end_lineno,
            err.end_offset,
            err.text,
            getattr(err, "about", None),
        )

    def error(self) -> RewriteError:
        """The RewriteError the import hook raises for this finding."""
        return RewriteError(
            self.message,
            self.filename,
            self.line,
            self.col,
            self.text,
            self.end_line,
            self.end_col,
            self.code,
        )

    def format(self, form: str = "text", paint: Callable[[str, str], str] | None = None) -> str:
        """The finding as one line: ``text`` (flake8's ``path:line:col: CODE message``; ``paint``
        gives it ruff's colours for a terminal), ``github`` (a workflow annotation) or
        ``refusal`` (migrate's ``path:line: message (CODE)``)."""
        if form == "text":
            paint = paint or (lambda text, _style: text)
            sep = paint(":", "cyan")
            where = sep.join([paint(self.filename, "bold"), str(self.line), str(self.col)])
            return f"{where}{sep} {paint(self.code, 'bold red')} {self.message}"
        if form == "refusal":
            return f"{location(self.filename, self.line)}: {self.message} ({self.code})"
        if form == "github":
            escaped = self.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            return (
                f"::error file={self.filename},line={self.line},col={self.col},"
                f"title={self.code}::{escaped}"
            )
        raise ValueError(f"unknown form {form!r}")

    def row(self) -> dict[str, Any]:
        """The finding as a JSON object (``check --format json``)."""
        return {
            "path": self.filename,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "message": self.message,
        }

    def __str__(self) -> str:
        return self.format("text")


#: A noqa comment, bare or naming codes as flake8 spells them (see ``suppressed``).
_NOQA = re.compile(
    r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)


def suppressed(finding: Diagnostic, lines: list[str]) -> bool:
    """Whether a ``# noqa`` (bare, or naming the finding's code) on its line silences it: read
    alike by ``check`` and by the import hook's warnings."""
    line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
    match = _NOQA.search(line)
    if match is None:
        return False
    codes = match.group("codes")
    if codes is None:
        return True
    named = {c.upper() for c in re.split(r"[,\s]+", codes) if c}
    return finding.code.upper() in named | {RETIRED[c] for c in named if c in RETIRED}
