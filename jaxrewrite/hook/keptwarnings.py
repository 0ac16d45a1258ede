"""What the hook says of a module at import, kept with its code.

A module's RewriteWarnings (an unknown directive; a marker that does nothing: JR002, JR004,
JR008... the rules whose module says ``AT_IMPORT``) are issued while it is rewritten. The code is
cached, and a warm import analyses nothing, so the warnings travel with the code: held beside it
here while it lives, written after it in the pyc (hook/pycfile.py) and read back with it, then
issued again whenever cached code is served (``say``). A warm import says what the cold one said,
and pays one marshal read of an empty tuple to know it.
"""

from __future__ import annotations

from types import CodeType
from weakref import WeakKeyDictionary

from jaxrewrite.errors import Notes
from jaxrewrite.errors import say as _say

#: Code objects compare by content, not by file: equal code comes from equal text, whose notes
#: are equal too (the file they name is the caller's to give).
_HELD: WeakKeyDictionary[CodeType, Notes] = WeakKeyDictionary()


def keep(code: CodeType, notes: Notes) -> CodeType:
    """Hold ``notes`` beside ``code`` (nothing where there are none); gives back ``code``. The
    table is looked at only when it holds something: a code object hashes by its content."""
    if notes:
        _HELD[code] = notes
    elif _HELD:
        _HELD.pop(code, None)
    return code


def held(code: CodeType) -> Notes:
    return _HELD.get(code, ())


def say(code: CodeType, path: str) -> None:
    """Issue the notes of cached ``code`` again, at their lines of ``path``."""
    if _HELD:
        _say(_HELD.get(code, ()), path)
