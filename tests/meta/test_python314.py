"""Python 3.14 itself: what changed there for jaxrewrite, run on a real 3.14 interpreter.

Skipped below 3.14. ``.ci/py314/run`` runs this file, with every golden case, in CPython 3.14
(Pyodide's WebAssembly build of it, under Node), the only 3.14 these machines can run. JAX has
no build there, so the transform these modules apply is a stand-in ``jax`` module that records
what it is given: what is checked is Python's side, which is jaxrewrite's. The ast without the
classes astor 0.8.1 knew, the tokenizer's t-strings, lazily evaluated annotations (PEP 649) as
``is_static`` reads them, and the import hook with its bytecode cache under 3.14's magic number.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import jaxrewrite
from jaxrewrite import is_static, rewrite_source
from jaxrewrite.engine.edits import render
from jaxrewrite.engine.findings import analyze
from jaxrewrite.header import scan_header, why_ignored
from jaxrewrite.hook import cachetag, pycfile

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 14), reason="Python 3.14's own behaviour (.ci/py314/run)"
)

Calls = list[tuple[Callable[..., Any], dict[str, Any]]]


@pytest.fixture
def jax_stand_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    """``jax`` with a ``jit`` that records the function and the keywords it is applied with."""
    calls: Calls = []

    def jit(fun: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        calls.append((fun, options))
        return fun

    stand_in = types.ModuleType("jax")
    stand_in.jit = jit  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "jax", stand_in)
    yield calls


def run(text: str, name: str = "py314_module") -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": name}
    exec(compile(text, f"{name}.py", "exec", dont_inherit=True), namespace)
    return namespace


def test_the_ast_classes_astor_knew_are_gone_and_fragments_still_render() -> None:
    """astor 0.8.1 looks ``ast.Num`` and friends up with ``getattr(ast, name, None)``; here they
    really are gone, and the fragments come out as on every other Python (the golden cases run
    in the same leg)."""
    for name in ("Num", "Str", "Bytes", "NameConstant", "Ellipsis"):
        assert not hasattr(ast, name), name
    assert render.value((0, None, "n")) == "(0, None, 'n')"
    before, after = render.wrapper((("static_argnums", (1,)), ("static_argnames", ("n",))))
    assert before + "jax.jit" + after == (
        "__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))"
    )


def test_a_call_site_inside_a_template_string_is_rewritten(jax_stand_in: Calls) -> None:
    source = textwrap.dedent(
        """\
        # jaxrewrite: enable
        import jax
        from jaxrewrite.markers import Static

        def f(x, n: Static[int]):
            return x

        shown = t"{jax.jit(f)} and {jax.jit(f, donate_argnums=0)!r:>10}"
        """
    )
    assert any(isinstance(node, ast.TemplateStr) for node in ast.walk(ast.parse(source)))  # type: ignore[attr-defined]
    out = rewrite_source(source, "py314_module.py")
    assert out.splitlines()[7] == (
        "shown = t\"{jax.jit(f, static_argnums=(1,), static_argnames=('n',))} and "
        "{jax.jit(f, donate_argnums=0, static_argnums=(1,), static_argnames=('n',))!r:>10}\""
    )
    assert out.count("\n") == source.count("\n")
    namespace = run(out)
    keywords = {"static_argnums": (1,), "static_argnames": ("n",)}
    assert jax_stand_in == [
        (namespace["f"], keywords),
        (namespace["f"], {"donate_argnums": 0, **keywords}),
    ]


BELOW = "it is below the module header"
INSIDE = "it is inside a string literal, not a comment"


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ('t"a template string"\n# jaxrewrite: enable\nimport jax\n', {2: BELOW}),
        ('t"""\n# jaxrewrite: enable\n"""\nimport jax\n', {2: INSIDE}),
        ('shown = t"{1}"  # jaxrewrite: enable\n', {}),
    ],
    ids=["pragma-after-a-t-string", "pragma-inside-a-t-string", "pragma-on-a-t-string-statement"],
)
def test_a_template_string_is_a_statement_not_a_docstring(source: str, why: dict[int, str]) -> None:
    """The header ends at the first statement other than the docstring; a t-string is never a
    docstring (it evaluates to a Template), so a pragma after one does not count, and one
    inside one is no comment (3.14 tokenizes a t-string in parts): each says why."""
    header = scan_header(source)
    assert not header.enabled
    assert header.ignored_lines == tuple(why)
    for line, reason in why.items():
        assert why_ignored(source, line).startswith(reason)


def test_check_says_why_a_pragma_below_a_template_string_does_not_count() -> None:
    """What ``jaxrewrite check`` reports (JR001): the markers do nothing, and why the pragma the
    author wrote is not the header's."""
    source = textwrap.dedent(
        """\
        t"not a docstring"
        # jaxrewrite: enable
        import jax
        from jaxrewrite.markers import Static

        @jax.jit
        def f(x, n: Static[int]):
            return x
        """
    )
    assert rewrite_source(source, "py314_module.py") == source
    findings = analyze(source, "py314_module.py", require_pragma=False, lint=True).diagnostics
    [finding] = [d for d in findings if d.code == "JR001"]
    assert finding.line == 7
    assert (
        "the '# jaxrewrite: enable' on line 2 does not count: it is below the module header"
        in finding.message
    )


LAZY = textwrap.dedent(
    """\
    # jaxrewrite: enable
    import jax
    from jaxrewrite.markers import Static

    @jax.jit
    def f(x: Later, n: S, m: int = 2):
        return x

    S = Static[int]

    class Later:
        pass
    """
)


def test_lazy_annotations_read_at_run_time_agree_with_the_rewrite(jax_stand_in: Calls) -> None:
    """Without ``from __future__ import annotations``, 3.14 no longer evaluates annotations when
    the def runs, so this module (an error on 3.13) is valid: ``S`` and ``Later`` are defined after
    ``f``. The rewrite reads ``n: S`` as Static from the source; ``is_static`` reads the same from
    the function object, evaluating the annotations only when asked."""
    out = rewrite_source(LAZY, "py314_module.py")
    assert out.splitlines()[4] == (
        "@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))"
    )
    namespace = run(out)
    [(fun, keywords)] = jax_stand_in
    assert fun is namespace["f"] and keywords == {"static_argnums": (1,), "static_argnames": ("n",)}
    assert is_static(fun, "n") and not is_static(fun, "m") and not is_static(fun, "x")


def test_an_unresolvable_annotation_elsewhere_is_no_error_but_the_asked_one_must_resolve() -> None:
    namespace = run(
        textwrap.dedent(
            """\
            from typing import TYPE_CHECKING
            from jaxrewrite.markers import Static
            if TYPE_CHECKING:
                from somewhere import OnlyForTypeCheckers

            def g(x: OnlyForTypeCheckers, n: Static[int], m: Missing = 1):
                return x
            """
        )
    )
    g = namespace["g"]
    assert is_static(g, "n")
    for name in ("x", "m"):
        with pytest.raises(NameError):
            is_static(g, name)


def test_the_import_hook_rewrites_caches_and_serves_from_its_cache(
    tmp_path: Path, jax_stand_in: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The finder, the loader and the hash-checked pyc on 3.14's importlib: the first import
    rewrites and writes the cache under 3.14's magic number, the next one only reads it."""
    module = tmp_path / "py314_hooked.py"
    module.write_text(
        LAZY.replace("class Later:\n    pass\n", "class Later:\n    pass\n\nVALUE = f(1, 3)\n")
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    compiled: list[str] = []
    real = pycfile.Pipeline.compile

    def counting(
        self: pycfile.Pipeline, data: bytes, path: str, optimize: int, header: Any = None
    ) -> Any:
        compiled.append(path)
        return real(self, data, path, optimize, header)

    monkeypatch.setattr(pycfile.Pipeline, "compile", counting)
    importlib.invalidate_caches()
    with jaxrewrite.install(["py314_hooked"]):
        try:
            first = importlib.import_module("py314_hooked")
            pyc = cachetag.cache_path(str(module))
            assert pyc is not None
            data = Path(pyc).read_bytes()
            assert data[:4] == importlib.util.MAGIC_NUMBER and data[4:8] == pycfile.TIMESTAMP
            del sys.modules["py314_hooked"]
            second = importlib.import_module("py314_hooked")
        finally:
            sys.modules.pop("py314_hooked", None)
    assert compiled == [str(module)]  # once: the second import was served from the cache
    assert first.VALUE == second.VALUE == 1
    keywords = {"static_argnums": (1,), "static_argnames": ("n",)}
    assert [options for _, options in jax_stand_in] == [keywords, keywords]
    assert is_static(second.f, "n")
