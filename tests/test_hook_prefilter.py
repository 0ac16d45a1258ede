"""The finder's first-block pre-filter must never hide a pragma that scan_header would count.

The property: if the filter says the header ends inside ``text[:k]`` (and that prefix holds no
needle), then a pragma line put anywhere at or after ``k`` must not opt the file in.
"""

from __future__ import annotations

import glob
import importlib.util
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from depth import examples

from jaxrewrite.hook.finder import _BLOCK, _read_source
from jaxrewrite.header import head_rules_out, header_end, scan_header

PRAGMA_LINE = b"# jaxrewrite: enable\n"


def pragma_hidden(text: bytes, k: int) -> bool:
    """Would the filter, reading only ``text[:k]``, miss a pragma that scan_header counts?

    Its answer depends on ``text[:k]`` alone, so it must hold for ``text`` itself (which may have
    a pragma-looking line after the header end) and for ``text`` with a pragma line put at or
    after ``k``.
    """
    if not head_rules_out(text[:k]):
        return False
    at = _line_start_at_or_after(text, k)
    newline = b"\n" if at and not text[:at].endswith(b"\n") else b""
    return any(_enabled(t) for t in (text, text[:at] + newline + PRAGMA_LINE + text[at:]))


def _enabled(text: bytes) -> bool:
    try:
        return scan_header(importlib.util.decode_source(text)).enabled  # as the hook decodes
    except (SyntaxError, UnicodeDecodeError):
        return False


def _line_start_at_or_after(text: bytes, k: int) -> int:
    if k == 0 or text[k - 1 : k] == b"\n":
        return k
    newline = text.find(b"\n", k)
    return len(text) if newline < 0 else newline + 1


PIECES = [
    b"# a comment\n",
    b"#!/usr/bin/env python\n",
    b"# -*- coding: utf-8 -*-\n",
    b"\n",
    b"  \t\n",
    b"\r\n",
    b"\xef\xbb\xbf",
    b'"""A docstring."""\n',
    b'"""A docstring\nover lines\n"""\n',
    b'r"""raw \\d docstring"""\n',
    b'"""escaped \\""" quote"""\n',
    b'"""escaped \\"""\nstill the docstring\n"""\n',
    b'"""ends with backslash\\\\"""\n',
    b'b"""bytes docstring"""\n',
    b'f"""f docstring"""\n',
    b'rb"""raw bytes"""\n',
    b"'single'\n",
    b"'single \\' escaped'\n",
    b'"a" "b"\n',
    b'"""doc""" \\\n    "continued"\n',
    b'"""doc""" \\\n',
    b'"""doc""" # trailing comment\n',
    b'"""doc"""; x = 1\n',
    b'"""doc\n# jaxrewrite: enable\ninside"""\n',
    b"from __future__ import annotations\n",
    b"from __future__ import annotations  # (comment\n",
    b"from __future__ import (\n    annotations,  # )\n    division,\n)\n",
    b"from __future__ import (annotations)\n",
    b"from __future__ import annotations; import os\n",
    b"from __future__ \\\n    import annotations\n",
    b"from __future__ import annotations, \\\n    division\n",
    b"from  __future__  import  annotations\n",
    b"from . import x\n",
    b"from .mod import x\n",
    b"from os import path\n",
    b"import os\n",
    b"x = 1\n",
    b"@decorator\n",
    b"def f():\n    pass\n",
    b"(1)\n",
    b"\\\n",
    b"if True:\n    pass\n",
    b"    import os\n",
    b"   # indented comment\n",
    b"x = '''\n# jaxrewrite: enable\n'''\n",
    b"# jaxrewrite: enable\n",
    b"#jaxrewrite:enable\n",
    b"\x0c\n",
]


@settings(max_examples=examples(400), deadline=None, database=None)
@given(st.lists(st.sampled_from(PIECES), max_size=8))
def test_filter_never_hides_a_pragma_in_generated_headers(pieces: list[bytes]) -> None:
    text = b"".join(pieces)
    for k in range(len(text) + 1):
        assert not pragma_hidden(text, k), (text, k)


def _jax_sources() -> list[str]:
    jax = pytest.importorskip("jax")
    return sorted(glob.glob(os.path.join(os.path.dirname(jax.__file__), "**", "*.py"), recursive=True))


def test_filter_never_hides_a_pragma_in_real_headers() -> None:
    checked = 0
    for path in _jax_sources()[::3]:
        with open(path, "rb") as file:
            text = file.read()
        for k in (200, 1000, 3000, _BLOCK):
            if k < len(text):
                assert not pragma_hidden(text, k), (path, k)
                checked += 1
    assert checked > 100


def test_filter_settles_almost_every_real_module_from_its_first_block() -> None:
    undecided = []
    for path in _jax_sources():
        with open(path, "rb") as file:
            head = file.read(_BLOCK)
        if len(head) == _BLOCK and not head_rules_out(head):
            undecided.append(path)
    assert len(undecided) < 20, undecided  # long docstrings; those are read in full, which is fine


@pytest.mark.parametrize(
    ("head", "ends"),
    [
        (b"# license\n\n\"\"\"Doc.\"\"\"\n\nfrom __future__ import annotations\n\nimport os\n", True),
        (b"import os\n", True),
        (b'"""Doc that does not end in this block', False),
        (b"# only comments\n# so far\n", False),
        (b'"""Doc."""\n"""Second string."""\n', True),
        (b'b"""bytes."""\nimport os\n', False),
        (b"from __future__ import (\n  annotations)\nimport os\n", True),
    ],
)
def test_header_end_examples(head: bytes, ends: bool) -> None:
    assert (header_end(head) >= 0) is ends


def test_pragma_after_a_long_docstring_is_still_found(tmp_path: os.PathLike[str]) -> None:
    path = os.path.join(tmp_path, "m.py")
    text = b'"""' + b"x" * (3 * _BLOCK) + b'"""\n# jaxrewrite: enable\nimport os\n'
    with open(path, "wb") as file:
        file.write(text)
    assert _read_source(path)[0] == text
    with open(path, "wb") as file:
        file.write(b"import os\n" + b"# " * _BLOCK + b"\n# jaxrewrite: enable\n")
    assert _read_source(path)[0] is None  # below the header: the first block settles it


def test_read_source_gives_the_stats_from_before_the_read(tmp_path: os.PathLike[str]) -> None:
    """The index records a verdict under the stats the file had before its bytes were read."""
    path = os.path.join(tmp_path, "m.py")
    with open(path, "wb") as file:
        file.write(b"import os\n" * 2000)  # over one block, ruled out by its first line
    stat = os.stat(path)
    assert _read_source(path, keyed=True) == (None, (stat.st_mtime_ns, stat.st_size))
    assert _read_source(path) == (None, None)
    # ``whole``: the index says it opted in when last read, so all of it is read, no block rule.
    assert _read_source(path, whole=True) == (None, None)
    text = b"# jaxrewrite: enable\n" + b"x = 1\n" * 3000
    with open(path, "wb") as file:
        file.write(text)
    assert _read_source(path, whole=True) == (text, None)
    assert _read_source(path, whole=True, keyed=True)[0] == text
    assert _read_source(os.path.join(tmp_path, "missing.py"), keyed=True) == (None, None)
