"""The engine's public contract: rewrite_source, RewriteError, RewriteWarning, pragma rules."""

from __future__ import annotations

import pickle
import warnings

import pytest

from jaxrewrite import RewriteError, RewriteWarning, rewrite_source, scan_header

MODULE = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static


@jax.jit
def f(x, n: Static[int]):
    return x
"""


def test_without_pragma_the_same_string_comes_back() -> None:
    source = MODULE.replace("# jaxrewrite: enable\n", "# nothing here\n")
    assert rewrite_source(source) is source


def test_without_static_the_same_string_comes_back() -> None:
    source = MODULE.replace("n: Static[int]", "n")
    assert rewrite_source(source) is source


def test_pragma_rewrites_only_the_decorator_line() -> None:
    out = rewrite_source(MODULE, "m.py")
    changed = [(a, b) for a, b in zip(MODULE.splitlines(), out.splitlines()) if a != b]
    assert changed == [
        (
            "@jax.jit",
            "@__import__('functools').partial(jax.jit, static_argnums=(1,), "
            "static_argnames=('n',))",
        )
    ]


def test_crlf_and_non_ascii_text_keep_their_bytes() -> None:
    source = MODULE.replace("\n", "\r\n").replace("return x", "return x  # café ☕")
    out = rewrite_source(source, "m.py")
    assert out.count("\r\n") == source.count("\r\n")
    assert "# café ☕" in out
    assert "static_argnames=('n',)" in out


def test_non_ascii_columns_are_located_by_character() -> None:
    source = MODULE.replace("def f(x, n: Static[int]):", "def f(é, *n: Static[int]):")
    with pytest.raises(RewriteError) as info:
        rewrite_source(source, "m.py")
    line = info.value.text or ""
    assert line[info.value.offset - 1 :].startswith("n: Static[int]")


def test_rewrite_error_is_a_located_syntax_error() -> None:
    source = MODULE.replace("n: Static[int]", "*n: Static[int]")
    with pytest.raises(SyntaxError) as info:
        rewrite_source(source, "pkg/m.py")
    err = info.value
    assert isinstance(err, RewriteError)
    assert (err.filename, err.lineno, err.offset) == ("pkg/m.py", 7, 11)
    assert err.text == "def f(x, *n: Static[int]):"
    assert str(err).startswith("pkg/m.py:7:11: JR101 Static cannot mark *args parameter 'n'")
    assert err.msg == f"JR101 {err.message}" and err.message.startswith("Static cannot mark")
    again = pickle.loads(pickle.dumps(err))
    assert (again.filename, again.lineno, again.offset, again.msg) == (err.filename, 7, 11, err.msg)


def test_unparsable_source_raises_pythons_own_syntax_error() -> None:
    with pytest.raises(SyntaxError) as info:
        rewrite_source("# jaxrewrite: enable\ndef f(:\n", "bad.py")
    assert type(info.value) is SyntaxError
    assert (info.value.filename, info.value.lineno) == ("bad.py", 2)


def test_unknown_header_directive_warns_at_its_line() -> None:
    source = "# jaxrewrite: enabel\n" + MODULE
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = rewrite_source(source, "m.py")
    assert [(w.category, w.filename, w.lineno) for w in caught] == [(RewriteWarning, "m.py", 1)]
    assert "enabel" in str(caught[0].message)
    assert out != source  # the real pragma on line 2 still counts


@pytest.mark.parametrize(
    ("header", "enabled"),
    [
        ("# jaxrewrite: enable\n", True),
        ("#jaxrewrite:enable\n", True),
        ('"""Doc."""\n# jaxrewrite: enable\n', True),
        ('"""Doc."""\nfrom __future__ import annotations\n# jaxrewrite: enable\n', True),
        ("import os\n# jaxrewrite: enable\n", False),
        ("x = '''\n# jaxrewrite: enable\n'''\n", False),
        ("import os  # jaxrewrite: enable\n", False),
        ("# jaxrewrite: disable\n", False),
    ],
)
def test_pragma_rule(header: str, enabled: bool) -> None:
    assert scan_header(header + "x = 1\n").enabled is enabled


def test_shadowed_names_are_not_transforms() -> None:
    source = MODULE.replace(
        "@jax.jit\ndef f", "def jit_like(jax):\n    @jax.jit\n    def f"
    ).replace("    return x\n", "        return x\n    return f\n")
    assert rewrite_source(source) == source


def test_a_name_bound_to_jit_and_to_something_else_is_an_error() -> None:
    """Guessing would either drop the statics or pass them to a function that is not jit."""
    source = MODULE.replace(
        "import jax\n", "import jax\nif x:\n    jit = jax.jit\nelse:\n    jit = print\n"
    )
    source = source.replace("@jax.jit", "@jit")
    with pytest.raises(RewriteError, match="bound more than once") as info:
        rewrite_source(source, "m.py")
    assert (info.value.lineno, info.value.offset) == (10, 2)


def test_try_import_fallbacks_that_agree_are_fine() -> None:
    source = MODULE.replace(
        "import jax\n",
        "import jax\ntry:\n    from jax import jit\nexcept ImportError:\n    from jax import jit\n",
    ).replace("@jax.jit", "@jit")
    assert "static_argnums=(1,)" in rewrite_source(source, "m.py")


def test_a_signature_ending_on_the_body_line_is_read() -> None:
    source = MODULE.replace(
        "def f(x, n: Static[int]):\n    return x\n", "def f(x,\n      n: Static[int]): return x\n"
    )
    assert "static_argnums=(1,)" in rewrite_source(source, "m.py")
