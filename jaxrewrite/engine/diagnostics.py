"""Findings as values: every problem the analysis meets, with a stable code and a location.

The engine raises a located RewriteError inside the analysis of one transform use (the keyword
math is easiest to read that way); ``analyze`` catches it at that use's boundary and records it
here, so one bad use never hides another. The hook raises the first; ``check`` reports them all.
"""

from __future__ import annotations

from dataclasses import dataclass

from jaxrewrite.errors import RewriteError

#: One code per kind of refusal (JR1nn, the RewriteErrors) or warning (JR0nn); the text is the
#: one-line summary ``check`` can list. Codes are never reused for another meaning.
CODES: dict[str, str] = {
    "JR001": "Static/NoDiff in a module whose header does not opt in",
    "JR002": "Static/NoDiff on a function that no transform of the module applies to",
    "JR003": "Static on a parameter whose type cannot be hashed",
    "JR004": "Static under a decorator or call that looks like a transform jaxrewrite does not know",
    "JR005": "unknown '# jaxrewrite:' directive in the header",
    "JR006": "a transform over something made from a marked def that jaxrewrite cannot see through",
    "JR100": "the source does not parse",
    "JR101": "a marker on *args or **kwargs",
    "JR102": "a marker nested inside another annotation",
    "JR103": "a marker hidden behind a 'type' statement alias",
    "JR104": "a transform name bound more than one way",
    "JR105": "keywords cannot be added to a decorator factory's result",
    "JR106": "per-leaf statics under a transform that cannot split them",
    "JR107": "per-leaf statics at a call site",
    "JR108": "per-leaf statics on *args or **kwargs",
    "JR109": "transform keywords passed as **mapping",
    "JR110": "a keyword-only Static parameter for a transform that takes positions only",
    "JR111": "a static spec that is not a literal",
    "JR112": "a Static argument that is also donated",
    "JR113": "an axis spec that maps a Static argument",
    "JR114": "an axis spec that is not a literal",
    "JR115": "an axis spec cannot be written for *args",
    "JR116": "a Static dataclass field listed in data_fields",
    "JR117": "a dataclass base class whose fields cannot be seen",
    "JR118": "dataclass field metadata that is not a literal",
    "JR119": "a function bound more than one way with different Static parameters",
    "JR120": "more positional arguments than the transform takes",
    "JR121": "a Static or NoDiff parameter that grad differentiates (in its argnums)",
    "JR122": "the module binds __import__, which the rewritten code calls",
    "JR125": "a wrapper of this module between a transform and a marked def that does not pass *args, **kwargs through",
}


@dataclass(frozen=True)
class Diagnostic:
    """One finding: ``line``/``col`` are 1-based, ``col`` counts characters (as SyntaxError does)."""

    code: str
    message: str
    filename: str
    line: int
    col: int
    end_line: int | None = None
    end_col: int | None = None
    #: The source line, for a caret display.
    text: str | None = None

    @property
    def is_error(self) -> bool:
        return self.code.startswith("JR1")

    @classmethod
    def from_error(cls, err: SyntaxError, code: str | None = None) -> Diagnostic:
        return cls(
            code or getattr(err, "code", None) or "JR100",
            str(err.msg),
            err.filename or "<unknown>",
            err.lineno or 1,
            err.offset or 1,
            err.end_lineno,
            err.end_offset,
            err.text,
        )

    def error(self) -> RewriteError:
        """The RewriteError the import hook raises for this finding."""
        return RewriteError(
            self.message, self.filename, self.line, self.col, self.text, self.end_line, self.end_col, self.code
        )

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}: {self.code} {self.message}"
