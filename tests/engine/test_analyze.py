"""The analysis as a value, and the seams the front ends plug into: environment, pragma, filters,
pipeline."""

from __future__ import annotations

import ast
import sys
import types

import pytest

import jaxrewrite
from jaxrewrite import RewriteError, analyze, rewrite_source
from jaxrewrite.engine.analysis import UseKind
from jaxrewrite.engine.findings.checks.registry import CODES
from jaxrewrite.engine.read.filters import EXHAUSTIVE
from jaxrewrite.engine.read.scopes import Imported, MarkerBinding
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import TRANSFORMS, Mark
from jaxrewrite.hook import cachetag, pycfile

MODULE = """\
# jaxrewrite: enable
from functools import partial
import jax
from jaxrewrite import Static


@jax.jit
def f(x, n: Static[int]):
    return x


@partial(jax.jit, inline=True)
def g(x, y):
    return x


h = jax.pmap(f, in_axes=(0, None))
"""


def test_uses_carry_transform_signature_and_spec() -> None:
    analysis = analyze(MODULE, "m.py")
    assert analysis.header.enabled and analysis.diagnostics == []
    (use,) = analysis.uses[:1]
    assert (use.kind, use.transform, use.target.name) == (UseKind.DECORATOR, TRANSFORMS["jit"], "f")
    assert use.signature is not None and [p.name for p in use.signature.params if p.markers] == [
        "n"
    ]
    assert use.values == [("static_argnums", (1,), None), ("static_argnames", ("n",), None)]
    call = analysis.uses[-1]
    assert (call.kind, call.transform.name, call.target.name) == (UseKind.CALL, "pmap", "f")
    assert [kw.arg for kw in call.written] == ["in_axes"]
    # g has no marker: the fast filters do not report it, the exhaustive ones do (for migrate).
    assert "g" not in [u.target.name for u in analysis.uses]
    every = analyze(MODULE, "m.py", filters=EXHAUSTIVE)
    (g_use,) = [u for u in every.uses if u.target.name == "g"]
    assert g_use.values is None and [ast.unparse(kw.value) for kw in g_use.written] == ["True"]


def test_findings_have_codes_and_the_hook_raises_the_first() -> None:
    source = MODULE + (
        "\n\n@jax.jit\ndef bad(**kw: Static[int]): ...\n\n@jax.jit\n"
        "def worse(*a: Static[int]): ...\n"
    )
    analysis = analyze(source, "m.py")
    assert [(d.code, d.line) for d in analysis.errors] == [("JR101", 21), ("JR101", 24)]
    assert all(d.code in CODES for d in analysis.diagnostics)
    with pytest.raises(RewriteError) as raised:
        rewrite_source(source, "m.py")
    assert (raised.value.lineno, raised.value.code) == (21, "JR101")
    assert str(Diagnostic.from_error(raised.value)).startswith("m.py:21:")


def test_unknown_directive_is_a_coded_warning() -> None:
    analysis = analyze("# jaxrewrite: enabled\nx = 1\n", "m.py")
    assert [(d.code, d.line, d.is_error) for d in analysis.diagnostics] == [("JR005", 1, False)]
    with pytest.warns(jaxrewrite.RewriteWarning, match="enabled"):
        assert rewrite_source("# jaxrewrite: enabled\nx = 1\n") == "# jaxrewrite: enabled\nx = 1\n"


CELL = """\
@J
def make(a, n: S):
    return a

@jit
def other(a, m: jaxrewrite.Static[int]):
    return a
"""


def test_environment_resolves_names_the_text_does_not_bind() -> None:
    """What a notebook cell needs: names from earlier cells, by what they are bound to now."""
    env = {
        "J": Imported("jax._src.api.jit"),
        "jit": Imported("jax.jit"),
        "S": MarkerBinding(frozenset({Mark.STATIC})),
        "jaxrewrite": Imported("jaxrewrite"),
    }
    out = rewrite_source(CELL, "<cell>", environment=env, require_pragma=False)
    assert (
        out.splitlines()[0]
        == "@__import__('functools').partial(J, static_argnums=(1,), static_argnames=('n',))"
    )
    assert "partial(jit, static_argnums=(1,), static_argnames=('m',))" in out.splitlines()[4]
    # Without the pragma requirement lifted, the same text is left alone; without the
    # environment nothing is known about J or S.
    assert rewrite_source(CELL, "<cell>", environment=env) == CELL
    assert rewrite_source(CELL, "<cell>", require_pragma=False) == CELL
    # A name the text binds itself wins over the environment.
    shadowed = "S = int\n" + CELL
    assert "static_argnums=(1,), static_argnames=('n',)" not in rewrite_source(
        shadowed, "<cell>", environment=env, require_pragma=False
    )


def test_pipeline_is_part_of_the_cache_path(tmp_path: object) -> None:
    default = cachetag.cache_path("/x/m.py", 0, pycfile.DEFAULT.name)
    other = cachetag.cache_path("/x/m.py", 0, "pytest")
    assert default and other and default != other
    code = pycfile.compile_source(b"# jaxrewrite: enable\nx = 1\n", "m.py", optimize=2)
    namespace: dict[str, object] = {}
    exec(code, namespace)
    assert namespace["x"] == 1


def test_compile_honours_the_optimisation_level() -> None:
    source = b"# jaxrewrite: enable\nassert False, 'kept'\n"
    stripped = pycfile.compile_source(source, "m.py", optimize=1)
    exec(stripped, {})  # asserts are gone at -O
    with pytest.raises(AssertionError):
        exec(pycfile.compile_source(source, "m.py", optimize=0), {})


def test_lazy_public_names() -> None:
    module = types.ModuleType("probe")
    assert jaxrewrite.Analysis.__name__ == "Analysis"
    with pytest.raises(AttributeError):
        _ = jaxrewrite.no_such_name
    assert sys.modules["jaxrewrite"] is jaxrewrite and module.__name__ == "probe"


def test_every_code_is_documented() -> None:
    """The guide's table of codes names every code the engine can give, and no other."""
    import re

    from docs_support import guide_text

    guide = guide_text()
    documented = set(re.findall(r"^\| (JR[12]\d\d) \|", guide, re.MULTILINE)) | set(
        re.findall(r"`(JR0\d\d)`", guide)
    )
    assert documented == set(CODES)


def test_a_mapping_of_keywords_is_refused_alike_for_transforms_and_registrations() -> None:
    """JR109 is one refusal (``specs.base.by_name``) for a transform's keywords, at a decorator
    or a call site, and for ``register_dataclass``'s: the Static parameters or fields cannot be
    merged into keywords passed as ``**mapping``; keywords written by name are read as before."""
    source = """\
# jaxrewrite: enable
import dataclasses
from functools import partial
import jax
from jaxrewrite import Static

kw = {}

@partial(jax.jit, **kw)
def f(x, n: Static[int]):
    return x

def g(x, n: Static[int]):
    return x

h = jax.jit(g, **kw)

@dataclasses.dataclass
class C:
    n: Static[int]
    x: float

jax.tree_util.register_dataclass(C, **kw)

@dataclasses.dataclass
class D:
    n: Static[int]
    x: float

jax.tree_util.register_dataclass(D, data_fields=["x"], meta_fields=["n"])
"""
    analysis = analyze(source, "m.py")
    found = [(d.code, d.line, d.message.split(" keywords")[0]) for d in analysis.errors]
    assert found == [
        ("JR109", 9, "cannot merge Static parameters into jit"),
        ("JR109", 16, "cannot merge Static parameters into jit"),
        ("JR109", 23, "cannot merge Static fields into register_dataclass"),
    ]
    assert all(
        d.message.endswith("passed as **kw; write the keywords out by name")
        for d in analysis.errors
    )
