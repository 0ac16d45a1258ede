"""What the loader does to a source file, as one value: rewrite, then compile, under a cache key.

A pipeline names everything that determines its output, so the cache can key on it: the default
one is jaxrewrite's rewrite then ``compile``; an integration (pytest's assertion rewriting, say)
replaces the compile step and adds its own key part, and can never be served the default
pipeline's code. The rewrite itself is always jaxrewrite's: the one text ``show`` prints.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType

from jaxrewrite.engine.header import Header, scan_header


def _compile(text: str, path: str, optimize: int) -> CodeType:
    return compile(text, path, "exec", dont_inherit=True, optimize=optimize)


@dataclass(frozen=True)
class Pipeline:
    """``source bytes -> code`` for one opted-in module."""

    #: A short name for what the steps beyond the default are (part of the cache file name).
    name: str = ""
    #: text, filename, optimisation level -> code; a step such as assertion rewriting goes here.
    to_code: Callable[[str, str, int], CodeType] = _compile

    def compile(self, data: bytes, path: str, optimize: int, header: Header | None = None) -> CodeType:
        """Decode file bytes as Python does (PEP 263), rewrite, compile. Pure: whoever runs the
        code says the file ran rewritten (hook/finder.py's ``compile_opted_in``)."""
        from jaxrewrite.engine.rewrite import rewrite_source  # the engine: imported on a cache miss only

        text = importlib.util.decode_source(data)
        header = scan_header(text) if header is None else header
        return self.to_code(rewrite_source(text, path, header=header), path, optimize)


DEFAULT = Pipeline()


def compile_source(data: bytes, path: str, optimize: int = -1) -> CodeType:
    """What the hook and runner execute for an opted-in file, at optimisation level ``optimize``."""
    return DEFAULT.compile(data, path, optimize)
