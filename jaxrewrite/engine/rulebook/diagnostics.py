"""Findings as values: every problem the analysis meets, with a stable code and a location.

The engine raises a located RewriteError inside the analysis of one transform use (the keyword
math is easiest to read that way); ``analyze`` catches it at that use's boundary and records it
here, so one bad use never hides another. The hook raises the first; ``check`` reports them all;
``migrate`` reports its refusals as JR2nn findings. Every front end prints a finding through
``Diagnostic.format``, so the forms (flake8's, RewriteError's, GitHub's, JSON rows) live here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

from jaxrewrite.errors import RewriteError, location

#: One code per kind of refusal (JR1nn, the RewriteErrors), warning (JR0nn) or migrate refusal
#: (JR2nn: a function ``jaxrewrite migrate`` leaves as written); the text is the one-line summary
#: ``check`` and ``migrate`` list. Codes are never reused for another meaning.
CODES: dict[str, str] = {
    "JR001": "Static/NoDiff in a module whose header does not opt in",
    "JR002": "Static/NoDiff on a function that no transform of the module applies to",
    "JR003": "Static on a parameter whose type or default cannot be hashed",
    "JR004": "Static under a decorator or call that looks like a transform but is not one jaxrewrite knows",
    "JR005": "an unknown '# jaxrewrite:' directive in the header",
    "JR006": "an argument a transform traces that the body needs as a Python value, or that JAX cannot trace at all",
    "JR007": "a transform over something made from a marked def that may change its arguments",
    "JR008": "a Static/NoDiff marker that does nothing here and that no other finding reports",
    "JR009": "a name imported from another module where a marker would act: jaxrewrite reads only the module's own aliases",
    "JR010": "a keyword-only Static parameter of a function jitted with 'in_shardings', which refuses every keyword argument",
    "JR011": "a Static parameter of a vmapped function not passed by position: by keyword it is mapped over axis 0, left to its default the call fails",
    "JR012": "a marked def passed to a JAX function that traces its arguments but that jaxrewrite does not rewrite",
    "JR013": "a transform applied to a def imported from another module whose parameters are marked there",
    "JR014": "a TypedDict or NamedTuple with Static entries held in a field of a pytree class, which flattens it: the entries are traced",
    "JR020": "a Static field of a class registered by its own flatten function",
    "JR100": "the source does not parse",
    "JR101": "a marker on '*args' or '**kwargs'",
    "JR102": "a marker nested inside another annotation",
    "JR103": "a marker hidden behind a 'type' statement alias",
    "JR104": "a transform name bound more than one way",
    "JR105": "keywords needed on a decorator factory's result",
    "JR106": "per-leaf statics under a transform that cannot split them",
    "JR107": "per-leaf statics at a call site whose transform is a decorator factory's result",
    "JR108": "per-leaf statics on '*args' or '**kwargs'",
    "JR109": "transform arguments passed as '**mapping' or '*sequence'",
    "JR110": "a keyword-only Static parameter under a transform that takes positions only",
    "JR111": "a static spec that is not a literal",
    "JR112": "a Static argument that is also donated",
    "JR113": "an 'in_axes' that maps a Static argument",
    "JR114": "an 'in_axes' that is not a literal",
    "JR115": "an 'in_axes' that cannot be written for a function with '*args'",
    "JR116": "a Static dataclass field listed in 'data_fields'",
    "JR117": "a dataclass base class whose fields cannot be seen in the module",
    "JR118": "dataclass field metadata that is not a literal",
    "JR119": "a function name bound more than one way, not all to defs with the same Static parameters",
    "JR120": "more positional arguments than the transform takes",
    "JR121": "a Static or NoDiff parameter that 'grad' or 'value_and_grad' differentiates",
    "JR122": "the module binds '__import__', which the rewritten code calls",
    "JR123": "an array-typed Static or NoDiff parameter under 'custom_vjp' or 'custom_jvp'",
    "JR124": "a positional Static parameter among the last two of a method under Linen's 'nn.jit'",
    "JR125": "a wrapper of the module between a transform and a marked def that does not pass '*args, **kwargs' straight through",
    "JR126": "per-leaf statics through a TypedDict or NamedTuple that holds itself again, or nests into too many",
    "JR127": "a marker, transform or transformed function read through more aliases or nested annotations than jaxrewrite follows, or through a loop",
    "JR130": "a Static field whose 'eqx.field', 'struct.field' or 'metadata' entry says it is not static",
    "JR131": "a Static field jaxrewrite cannot read",
    "JR132": "NoDiff on a field of an Equinox Module or a flax.struct dataclass",
    "JR133": "Static fields on a class whose base is not in the module, one of them a dataclasses.field whose one metadata key cannot speak to every library",
    "JR201": "a spec that is not a literal",
    "JR202": "a name that is not a parameter JAX can take by keyword",
    "JR203": "a negative position (JAX resolves it per call)",
    "JR204": "a position that falls into *args",
    "JR205": "a position past the parameters (JAX rejects it)",
    "JR206": "static only by position, or only by keyword",
    "JR207": "a function given different statics by two transforms or call sites",
    "JR208": "a call site whose function is not a def of this module",
    "JR209": "a spec written in an alias that other uses share",
    "JR210": "a static argument that is also donated",
    "JR211": "a decorator between the transform and the def hides the signature JAX infers from",
    "JR212": "transform arguments passed as **mapping",
    "JR213": "a spec passed by position",
    "JR214": "a spec keyword the transform table does not write",
    "JR215": "a use the analysis cannot read",
    "JR216": "the module header cannot take the pragma, or enabling it changes other code",
    "JR217": "the migrated module does not rewrite to the same statics",
}

#: How ``Diagnostic.format`` can print a finding: ``text`` (flake8's ``path:line:col: CODE
#: message``: check, show, ``str(RewriteError)``), ``github`` (a workflow annotation),
#: ``refusal`` (migrate's ``path:line: message (CODE)``, no column).
FORMS = ("text", "github", "refusal")


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
            str(getattr(err, "message", err.msg)),  # a RewriteError's msg leads with its code
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

    def format(self, form: str = "text", paint: Callable[[str, str], str] | None = None) -> str:
        """The finding as one line (no line break) in one of ``FORMS``; ``paint``: the text form
        in ruff's colours for a terminal (bold path, cyan separators, bold red code), painted by
        the command that prints it (``commands.colour.paint``)."""
        if form == "text" and paint is not None:
            sep = paint(":", "cyan")
            where = sep.join([paint(self.filename, "bold"), str(self.line), str(self.col)])
            return f"{where}{sep} {paint(self.code, 'bold red')} {self.message}"
        if form == "text":
            return f"{location(self.filename, self.line, self.col)}: {self.code} {self.message}"
        if form == "refusal":
            return f"{location(self.filename, self.line)}: {self.message} ({self.code})"
        if form == "github":
            return (
                f"::error file={self.filename},line={self.line},col={self.col},"
                f"title={self.code}::{_escape(self.message)}"
            )
        raise ValueError(f"unknown form {form!r}; one of {', '.join(FORMS)}")

    def row(self) -> dict[str, Any]:
        """The finding as a JSON object (``check --format json``)."""
        return {"path": self.filename, "line": self.line, "col": self.col, "code": self.code, "message": self.message}

    def __str__(self) -> str:
        return self.format("text")


def _escape(message: str) -> str:
    """GitHub's workflow-command escaping for a message."""
    return message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


#: A noqa comment, bare or naming codes as flake8 spells them (see ``suppressed``).
_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def suppressed(finding: Diagnostic, lines: list[str]) -> bool:
    """Whether a ``# noqa`` (bare, or naming the finding's code) on its line silences it: read
    alike by ``check`` and by the import hook's warnings."""
    line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
    match = _NOQA.search(line)
    if match is None:
        return False
    codes = match.group("codes")
    return codes is None or finding.code.upper() in {c.upper() for c in re.split(r"[,\s]+", codes) if c}
