"""JR005: the analysis says it from the header before any tree is read (``engine.build``), so its
record lives with the analysis' own codes (``rulebook.rules``) and no check runs here."""

from __future__ import annotations

from jaxrewrite.engine.rulebook.rules import UNKNOWN_DIRECTIVE as RULE

__all__ = ["RULE"]
