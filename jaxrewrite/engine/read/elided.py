"""What the analysis knows of a def whose body was left unparsed: the contract between the
analysis and the hook's fast route (jaxrewrite/hook/fast/skeleton.py), which builds such trees.

Why here: the analysis must read an elided def (its body's first line, the statement kinds it
dispatches on) without importing the code that elides it; the fast route imports this, never the
reverse (tests/test_layers.py). An elided def is an ``ElidedDef`` (``ElidedAsyncDef``) whose
``body`` is parsed from the module's text on first read, at its own lines and columns, so
whatever reads it gets what the full parse gives; ``body_line`` reads its first line unparsed.
"""

from __future__ import annotations

import ast

#: Text that may begin a def, a class or a decorator: ``scopes``' test for a body worth walking
#: (a superset, also in strings, comments and ``a @ b``: a few more bodies walked and parsed).
#: The fast route keeps every body that holds one.
STRUCTURAL = ("def", "class", "@")


def _body_of(node: ast.AST) -> list[ast.stmt]:
    """The real body, parsed from the text when first read: an elided def holds ``first`` and
    ``last`` (the body's first and last lines), the text and its line starts."""
    d = node.__dict__
    body: list[ast.stmt] | None = d.get("body")
    if body is None:
        starts = d["_starts"]
        first, last = d["first"], d["last"]
        head = "async def _():\n" if isinstance(node, ast.AsyncFunctionDef) else "def _():\n"
        wrapper = ast.parse("\n" * (first - 2) + head + d["_source"][starts[first - 1] : starts[last]]).body[0]
        assert isinstance(wrapper, (ast.FunctionDef, ast.AsyncFunctionDef))
        body = d["body"] = wrapper.body
    return body


def _set_body(node: ast.AST, body: list[ast.stmt]) -> None:
    node.__dict__["body"] = body


# The property sits on each class itself: a shared base class would change the object layout,
# and the parsed node's class could not be swapped.
class ElidedDef(ast.FunctionDef):
    """A ``def`` of the skeleton whose body is parsed when first read."""

    __slots__ = ()
    body = property(_body_of, _set_body)


class ElidedAsyncDef(ast.AsyncFunctionDef):
    """An ``async def`` of the skeleton whose body is parsed when first read."""

    __slots__ = ()
    body = property(_body_of, _set_body)


ELIDED = (ElidedDef, ElidedAsyncDef)


def elide(node: ast.FunctionDef | ast.AsyncFunctionDef, first: int, last: int, text: str, line_starts: list[int]) -> None:
    """Make the parsed def ``node`` (its body a stub) an elided def whose body, lines ``first`` to
    ``last`` of ``text``, is parsed when first read."""
    d = node.__dict__
    del d["body"]
    node.__class__ = ElidedAsyncDef if isinstance(node, ast.AsyncFunctionDef) else ElidedDef
    d["first"], d["last"], d["_source"], d["_starts"] = first, last, text, line_starts


def body_line(func: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The line of the def's first statement, read without parsing an elided body."""
    return func.__dict__.get("first") or func.body[0].lineno

