"""The vocabulary of JAX's reading of a hand-written spec: what a use makes static as written
(``Reading``), and why a spec no annotation can say the same is ``Refused`` (``Reason``, JR2nn).

Each spec kind reads its own spec (``engine.walk.specs``, ``read``); the reading is the one shared by
``migrate`` (what a use made static before the migration) and ``check``'s trace-time analysis
(which parameters a use traces). Imports nothing of the engine but the signature's kinds.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from jaxrewrite.engine.read.signature import Kind


class Reason(enum.Enum):
    """Why a function (or a spec that names no def of the module) was left as written."""

    NON_LITERAL = "non-literal"
    NOT_IN_SIGNATURE = "not-in-signature"
    NEGATIVE = "negative"
    VARARGS = "varargs"
    OUT_OF_RANGE = "out-of-range"
    ONE_WAY = "one-way"
    DISAGREE = "disagree"
    NOT_LOCAL = "not-a-local-def"
    ALIAS = "alias"
    DONATED = "donated"
    HIDDEN_SIGNATURE = "hidden-signature"
    UNPACKED = "unpacked"
    POSITIONAL = "positional"
    UNSUPPORTED = "unsupported-keyword"
    UNREADABLE = "unreadable"
    MODULE = "module"
    ROUND_TRIP = "round-trip"

    @property
    def code(self) -> str:
        """The finding code (``CODES``): JR201 for the first reason, in declaration order."""
        return _CODE[self]


_CODE: dict[Reason, str] = {reason: f"JR2{index:02d}" for index, reason in enumerate(Reason, start=1)}


class Refused(Exception):
    """Raised inside the planning of one function; becomes its ``Refusal``."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


BY_KEYWORD = (Kind.POSITIONAL_OR_KEYWORD, Kind.KEYWORD_ONLY)
VARIADIC = (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)


Meaning = dict[str, frozenset[int | str]]


@dataclass(frozen=True)
class Reading:
    """What a use's spec makes static, per keyword of the transform table, as JAX reads it (for an
    axes spec: the positions it leaves unmapped, which reach the function as they are passed)."""

    meaning: Meaning
    #: JAX inferred one list from the signature it was handed.
    inferred: bool


def sorted_values(values: frozenset[int | str]) -> tuple[int | str, ...]:
    return tuple(sorted(values, key=lambda v: (isinstance(v, str), v)))


def spell(meaning: Meaning) -> str:
    """``static_argnums=(1,), static_argnames=('n',)``, or ``nothing static``."""
    return ", ".join(f"{k}={sorted_values(v)!r}" for k, v in sorted(meaning.items()) if v) or "nothing static"
