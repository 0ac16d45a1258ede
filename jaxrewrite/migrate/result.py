"""What a migration gives back: the text, what was migrated, and the refusals (findings with
their reason's code).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The reasons are the engine's (its one reading of JAX's specs refuses with them): re-exported.
from jaxrewrite.engine.read.handwritten import Reason as Reason
from jaxrewrite.engine.read.handwritten import Refused as Refused
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.rules import RULES

#: One line per reason, for summaries (``jaxrewrite migrate`` prints the counts with these): the
#: text of each reason's code in the one table of codes.
REASONS: dict[Reason, str] = {reason: RULES[reason.rule.code].summary for reason in Reason}


@dataclass(frozen=True)
class UseRecord:
    """One transform use of a migrated function: where it is, and what its spec meant to JAX."""

    transform: str
    kind: str  # "decorator" or "call"
    #: Where the use's expression starts and ends in the original text (AST lines and columns).
    line: int
    col: int
    end_line: int
    end_col: int
    #: The line the use starts on in the migrated text.
    new_line: int
    #: Each static keyword of the transform and the positions or names it gave, JAX's reading.
    spec: tuple[tuple[str, tuple[int | str, ...]], ...]
    #: Whether the user wrote the spec here (False: a use without one, which must stay without).
    written: bool


@dataclass(frozen=True)
class Migrated:
    """A function whose hand-written specs became annotations."""

    function: str
    line: int
    new_line: int
    #: (parameter, marker) for every annotation added.
    params: tuple[tuple[str, str], ...]
    uses: tuple[UseRecord, ...]


@dataclass(frozen=True)
class Refusal:
    """A function left as written (``function`` None: no def, or the module)."""

    reason: Reason
    message: str
    line: int
    function: str | None = None

    @property
    def text(self) -> str:
        """``refused f: why [reason]``: the finding's message."""
        what = f"refused {self.function}" if self.function is not None else "refused"
        return f"{what}: {self.message} [{self.reason.value}]"

    def diagnostic(self, filename: str) -> Diagnostic:
        """The refusal as a finding of ``filename`` (column 1: a refusal is about a whole line)."""
        return Diagnostic(self.reason.rule.code, self.text, filename, self.line, 1)


@dataclass
class Migration:
    """A module's migration: the text, what was migrated, and every refusal."""

    original: str
    text: str
    migrated: list[Migrated]
    refused: list[Refusal]
    #: (start, end, text) of each edit that made ``text`` from ``original``: what a diff compares.
    changes: list[tuple[int, int, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.text != self.original
