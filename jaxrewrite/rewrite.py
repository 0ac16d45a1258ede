"""rewrite_source: the pure engine (header check, planning, splicing). Being written now."""

from __future__ import annotations


def rewrite_source(source: str, filename: str = "<string>") -> str:
    raise NotImplementedError
