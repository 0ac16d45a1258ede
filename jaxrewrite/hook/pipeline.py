"""What the loader does to a source file, as one value: rewrite, then compile, under a cache key.

A pipeline names everything that determines its output, so the cache can key on it: the default
one is jaxrewrite's rewrite then ``compile``; an integration (pytest's assertion rewriting, say)
replaces the compile step and adds its own key part, and can never be served the default
pipeline's code. The rewrite itself is always jaxrewrite's: the one text ``show`` prints.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType

from jaxrewrite.errors import Notes
from jaxrewrite.header import Header, scan_header
from jaxrewrite.hook import notes


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
        text = importlib.util.decode_source(data)
        header = scan_header(text) if header is None else header
        if self.to_code is _compile:
            return compile_rewritten(text, path, optimize, header)
        rewritten, said = rewrite_text(text, path, header)
        return notes.keep(self.to_code(rewritten, path, optimize), said)


def rewrite_text(text: str, path: str, header: Header | None = None) -> tuple[str, Notes]:
    """The rewritten text, with the warnings issued on the way (the markers that do nothing),
    for a step that compiles the text itself (an integration's, another tool's loader)."""
    from jaxrewrite.hook.fast import rewrite_tree  # the engine: imported on a cache miss only

    rewritten = rewrite_tree(text, path, header, worth=0.0, report=True)  # the text only: no tree built
    return rewritten.text, rewritten.notes


def compile_rewritten(
    text: str, path: str, optimize: int, header: Header | None = None, worth: float | None = None, report: bool = True
) -> CodeType:
    """The default pipeline on decoded text: the code of the rewritten text, compiled from the
    analysed tree where that pays and every edit could be spelled as nodes (hook/fast/treecode.py),
    byte for byte the code of the text; ``JAXREWRITE_VERIFY_AST=1`` checks that at every import.
    ``worth``: treecode's threshold (tests pass inf, to take the tree route whenever it can).
    ``report`` (on, as the hook runs it): also say which markers do nothing (``analyze``'s); the
    warnings issued are held beside the code for the cache (hook/notes.py)."""
    from jaxrewrite.engine.analyze import collector_paused
    from jaxrewrite.hook.fast import WORTH, rewrite_tree, skeleton_rewrite

    from_skeleton = skeleton_rewrite(text, path, header, report=report)
    if from_skeleton is not None:
        text_from_skeleton, said = from_skeleton
        try:
            code = _compile(text_from_skeleton, path, optimize)
        except SyntaxError:
            pass  # a body the skeleton left out does not parse: the full reading says so
        else:
            if os.environ.get("JAXREWRITE_VERIFY_AST") == "1":
                _verify_skeleton(text, path, header, text_from_skeleton)
            return notes.keep(code, said)
    with collector_paused():  # the collector would rescan the live tree while it compiles
        rewritten = rewrite_tree(text, path, header, WORTH if worth is None else worth, report=report)
        if rewritten.tree is None:
            return notes.keep(_compile(rewritten.text, path, optimize), rewritten.notes)
        try:
            code = compile(rewritten.tree, path, "exec", dont_inherit=True, optimize=optimize)
        except RecursionError:
            # Compiling a tree object walks it in Python's recursion limit, compiling text in the
            # parser's deeper one: an expression ~1000 levels deep (a long generated sum) compiles
            # as text only. The text is the code anyway; the tree route only saves a parse.
            rewritten.tree = None
            return _compile(rewritten.text, path, optimize)
        # Free the tree now: marshal flags the objects a live tree shares with the code, so the
        # cached bytes would differ from the text's.
        rewritten.tree = None
        notes.keep(code, rewritten.notes)
    if os.environ.get("JAXREWRITE_VERIFY_AST") == "1":
        text_code = _compile(rewritten.text, path, optimize)  # held alike: marshal counts references
        if marshal.dumps(code) != marshal.dumps(text_code):
            raise AssertionError(
                f"jaxrewrite internal error: {path}: the code compiled from the rewritten tree differs "
                "from the code of the rewritten text (JAXREWRITE_VERIFY_AST=1)"
            )
    return code


def _verify_skeleton(text: str, path: str, header: Header | None, from_skeleton: str) -> None:
    from jaxrewrite.engine.rewrite import rewrite_source

    if rewrite_source(text, path, header=header) != from_skeleton:
        raise AssertionError(
            f"jaxrewrite internal error: {path}: the text rewritten from the module's skeleton differs "
            "from the text rewritten from the whole module (JAXREWRITE_VERIFY_AST=1)"
        )


DEFAULT = Pipeline()


def compile_source(data: bytes, path: str, optimize: int = -1) -> CodeType:
    """What the hook and runner execute for an opted-in file, at optimisation level ``optimize``."""
    return DEFAULT.compile(data, path, optimize)
