"""The code the runner (``python -m jaxrewrite SCRIPT``) executes for a script file, cached.

A script is run many times a day, and rewriting it imports the engine each time: an opted-in script
is served from the hook's own pyc, by the very rules a module is (hook/cachetag.py,
hook/pycfile.py). A script that does not opt in, or cannot be decoded, is compiled as ``python``
compiles it, so the error is Python's own, naming the file and line.
"""

from __future__ import annotations

import os
import sys
from types import CodeType

from jaxrewrite.header import might_opt_in
from jaxrewrite.hook import cachetag, pycfile
from jaxrewrite.hook.finder import _header, _served, compile_opted_in


def script_code(data: bytes, filename: str) -> CodeType:
    """The code to run for the script ``filename`` whose bytes are ``data``."""
    header = _header(data) if might_opt_in(data) else None
    if header is None or not (header.enabled or header.unknown):
        return compile(data, filename, "exec", dont_inherit=True)
    if not header.enabled:
        return compile_opted_in(data, filename, header=header)  # JR005 is the engine's to say
    # Keyed by the hash of the bytes in hand: a stat taken after they were read may be newer.
    pyc = cachetag.cache_path(filename)
    if pyc is not None:
        code = pycfile.load(pyc, filename, _NO_STAT, lambda: data)
        if code is not None:
            return _served(code, filename)
    code = compile_opted_in(data, filename, optimize=sys.flags.optimize, header=header)
    if pyc is not None:
        pycfile.store(pyc, code, pycfile.hash_key(data), filename)
    return code


#: Scripts' pycs are hash-checked: no stat is compared (a zero one matches no timestamped pyc).
_NO_STAT = os.stat_result((0,) * 10)
