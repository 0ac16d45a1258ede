"""The vocabulary of JAX's reading of a hand-written spec, for ``migrate`` and ``check``'s
trace-time analysis: what a use makes static as written (``Reading``), and why a spec no
annotation can say the same is ``Refused`` (``Reason``, JR2nn).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from jaxrewrite.engine.read.signature import Kind
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.rules import Rule


class Reason(enum.Enum):
    """Why a function (or a spec naming no def of the module) was left as written: the name
    migrate prints, and its rule."""

    NON_LITERAL = "non-literal", rules.NOT_LITERAL
    NOT_IN_SIGNATURE = "not-in-signature", rules.NOT_IN_SIGNATURE
    NEGATIVE = "negative", rules.NEGATIVE
    VARARGS = "varargs", rules.VARARGS
    OUT_OF_RANGE = "out-of-range", rules.OUT_OF_RANGE
    ONE_WAY = "one-way", rules.ONE_WAY
    DISAGREE = "disagree", rules.DISAGREE
    NOT_LOCAL = "not-a-local-def", rules.NOT_LOCAL
    ALIAS = "alias", rules.ALIAS
    DONATED = "donated", rules.DONATED
    HIDDEN_SIGNATURE = "hidden-signature", rules.HIDDEN_SIGNATURE
    UNPACKED = "unpacked", rules.UNPACKED
    POSITIONAL = "positional", rules.POSITIONAL
    UNSUPPORTED = "unsupported-keyword", rules.UNSUPPORTED
    UNREADABLE = "unreadable", rules.UNREADABLE
    MODULE = "module", rules.MODULE
    ROUND_TRIP = "round-trip", rules.ROUND_TRIP

    def __new__(cls, value: str, rule: Rule) -> Reason:
        member = object.__new__(cls)
        member._value_ = value
        member.rule = rule
        return member

    #: The reason's rule: JR2nn, or the engine's own for the same check (JR111, JR112, JR109).
    rule: Rule

    def refused(self, variant: str = "", /, **fields: Any) -> Refused:
        """What leaves the function as written: the rule's message (``variant``) filled."""
        return Refused(self, self.rule.text(variant, **fields))


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
    return (
        ", ".join(f"{k}={sorted_values(v)!r}" for k, v in sorted(meaning.items()) if v)
        or "nothing static"
    )
