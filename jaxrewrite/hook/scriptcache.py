"""The code the runner (``python -m jaxrewrite SCRIPT``) executes for a script file, cached.

Why: a script is run many times a day, and rewriting it imports the engine (~100 ms) each time.
An opted-in script is served from the hook's own pyc cache, by the very rules a module is
(hook/tag.py's tag: rewriter digest, pipeline, optimisation level; hook/pycfile.py's PEP 552
check of the source bytes), so code is never served for other source text. A script that does
not opt in is compiled as ``python`` compiles it, without the engine.
"""

from __future__ import annotations

import importlib.util
import sys
from types import CodeType

from jaxrewrite.header import might_opt_in, scan_header
from jaxrewrite.hook import pipeline, pycfile, tag
from jaxrewrite.hook.finder import cache, cached, compile_opted_in


def script_code(data: bytes, filename: str) -> CodeType:
    """The code to run for the script ``filename`` whose bytes are ``data``."""
    if not might_opt_in(data):
        return _plain(data, filename)
    try:
        text = importlib.util.decode_source(data)
    except (SyntaxError, UnicodeDecodeError):
        return _plain(data, filename)  # undecodable source cannot opt in; the compiler words the error
    header = scan_header(text)
    if not header.enabled:
        if not header.unknown:
            return _plain(data, filename)  # the rewrite would give back the very text
        return compile_opted_in(data, filename, pipeline.DEFAULT, -1, header)  # JR005 is the engine's to say
    optimize = sys.flags.optimize
    source_hash = importlib.util.source_hash(data)
    pyc = tag.cache_path(filename, optimize, pipeline.DEFAULT.name)
    if pyc is not None:
        code = cached(pyc, source_hash, filename)
        if code is not None:
            return code
    code = compile_opted_in(data, filename, pipeline.DEFAULT, optimize, header)
    if pyc is None:
        pycfile.trace(f"no pyc for {filename}: no cache tag")
    else:
        cache(pyc, code, source_hash, filename)
    return code


def _plain(data: bytes, filename: str) -> CodeType:
    return compile(data, filename, "exec", dont_inherit=True)
