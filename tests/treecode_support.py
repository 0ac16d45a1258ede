"""The check shared by tests/test_treecode.py (golden inputs) and tests/test_corpus.py (every
corpus text that rewrites): what the hook compiles is byte for byte the code of the printed text."""

from __future__ import annotations

import marshal
import math
import warnings

import pytest

from jaxrewrite import rewrite_source
from jaxrewrite.hook import fast, pipeline
from jaxrewrite.hook.fast import treecode

OPTIMIZE = (-1, 2)


def compare(source: str, filename: str) -> str | None:
    """The route the hook takes ('tree' or 'text'), None when the engine refuses; asserts that
    what the hook compiles is byte for byte the code of ``rewrite_source``'s text."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = rewrite_source(source, filename)
        except SyntaxError:  # RewriteError too: the tree route raises the same
            with pytest.raises(SyntaxError):
                treecode.rewrite_tree(source, filename, worth=math.inf)
            return None
        # The skeleton's reading (hook/fast/skeleton.py), wherever there is one, gives the same text.
        from_skeleton = fast.skeleton_rewrite(source, filename, least=0)
        assert from_skeleton is None or from_skeleton[0] == expected, filename
        result = treecode.rewrite_tree(source, filename, worth=math.inf)
        route = "text" if result.tree is None else "tree"
        assert result.text == expected, filename
        del result
        for optimize in OPTIMIZE:
            # Both held by one name each: marshal flags an object by its reference count.
            code = pipeline.compile_rewritten(source, filename, optimize, worth=math.inf)
            from_text = compile(expected, filename, "exec", dont_inherit=True, optimize=optimize)
            assert marshal.dumps(code) == marshal.dumps(from_text), (filename, optimize, route)
    return route
