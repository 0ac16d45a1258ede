"""Static fields of Equinox Modules and flax.struct dataclasses (``engine/read/classes.py``).

The rows of ``table.FIELD_FORMS`` are checked against the installed equinox and flax; the
spellings and refusals that the golden cases in ``golden/fields/`` do not pin are checked here,
by rewriting; the golden ``_check`` functions run the rewritten modules against the hand-written.
"""

from __future__ import annotations

import dataclasses
import inspect
import textwrap

import pytest
from golden_cases import execute

from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite.engine.build import build_analysis
from jaxrewrite.engine.read.filters import EXHAUSTIVE
from jaxrewrite.engine.rulebook.table import FIELD_FORMS, FieldForm


def _form(library: str) -> FieldForm:
    return next(form for form in FIELD_FORMS if form.library == library)


def _module(path: str) -> object:
    module, _, name = path.rpartition(".")
    return getattr(__import__(module, fromlist=[name]), name)


@pytest.mark.parametrize("form", FIELD_FORMS, ids=[form.library for form in FIELD_FORMS])
def test_row_matches_the_installed_library(form: FieldForm) -> None:
    """The keyword exists where the row says, and writes the metadata entry the row relies on
    (so ``dataclasses.field(metadata={key: value})`` means the same to the library)."""
    pytest.importorskip(form.module)
    field = _module(form.field)
    params = list(inspect.signature(field).parameters.values())  # type: ignore[arg-type]
    param = next(p for p in params if p.name == form.keyword)
    if form.position is None:
        assert param.kind is inspect.Parameter.KEYWORD_ONLY
    else:
        assert (
            params.index(param) == form.position
            and param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
    made = field(**{form.keyword: form.static})  # type: ignore[operator]
    assert isinstance(made, dataclasses.Field) and made.metadata[form.keyword] is form.static
    for name in form.bases | form.decorators:
        assert callable(_module(name)), name


def _rewrite(body: str) -> str:
    return rewrite_source("# jaxrewrite: enable\n" + textwrap.dedent(body), "m.py")


@pytest.mark.parametrize(
    "imports, base, field",
    [
        ("import flax.struct as fs", "fs.PyTreeNode", "fs.field()"),
        ("from flax.struct import PyTreeNode, field", "PyTreeNode", "field()"),
        ("from flax import struct as st", "st.PyTreeNode", "st.field()"),
    ],
)
def test_flax_spellings(imports: str, base: str, field: str) -> None:
    out = _rewrite(
        f"""
        {imports}
        from jaxrewrite import Static
        class Node({base}):
            a: Static[int] = {field[:-1]}pytree_node=False)
            b: Static[int] = {field}
        """
    )
    assert f"a: Static[int] = {field[:-1]}pytree_node=False)\n" in out
    assert f"b: Static[int] = {field[:-1]}pytree_node=False)\n" in out


def test_decorator_call_form_and_nested_class() -> None:
    out = _rewrite(
        """
        from flax import struct
        from jaxrewrite import Static
        def make():
            @struct.dataclass(kw_only=True)
            class Cfg:
                n: Static[int] = 2
            return Cfg
        """
    )
    assert (
        "n: Static[int] = __import__('flax.struct').struct.field(default=2, pytree_node=False)\n"
        in out
    )


def test_struct_subclass_without_the_decorator_is_not_one() -> None:
    """flax.struct.dataclass makes only the class it decorates a dataclass: a plain subclass's
    Static fields are left alone (and nothing registers them)."""
    source = """
        from flax import struct
        from jaxrewrite import Static
        @struct.dataclass
        class A:
            n: Static[int] = 2
        class B(A):
            m: Static[int] = 3
        """
    out = _rewrite(source)
    assert "m: Static[int] = 3\n" in out and "n: Static[int] = __import__" in out


def test_multiline_value_keeps_lines() -> None:
    source = (
        "# jaxrewrite: enable\nimport equinox as eqx\nfrom jaxrewrite import Static\n"
        "class M(eqx.Module):\n    n: Static[tuple] = (\n        1,  # one\n        2,\n"
        "    )\n"
    )
    out = rewrite_source(source, "m.py")
    assert out.count("\n") == source.count("\n")
    assert out.endswith(
        "    n: Static[tuple] = __import__('equinox').field(default=(\n"
        "        1,  # one\n        2,\n    ), static=True)\n"
    )


def test_rebound_import_is_refused() -> None:
    with pytest.raises(RewriteError) as err:
        _rewrite(
            """
            import equinox as eqx
            from jaxrewrite import Static
            __import__ = None
            class M(eqx.Module):
                n: Static[int]
            """
        )
    assert err.value.code == "JR122"


def test_every_filter_gives_the_same_fields() -> None:
    source = (
        "# jaxrewrite: enable\nimport equinox as eqx\nfrom jaxrewrite import Static as S\n"
        "class A(eqx.Module):\n    n: S[int] = 1\nclass B(A):\n    m: 'S[int]'\n"
    )
    fast, exhaustive = build_analysis(source), build_analysis(source, filters=EXHAUSTIVE)
    assert [(f.name, f.action) for f in fast.fields] == [
        (f.name, f.action) for f in exhaustive.fields
    ]
    assert [f.name for f in fast.fields] == ["n", "m"]


def test_registered_by_a_call_site_is_not_unseen() -> None:
    """JR133 is for Static fields nothing consumes: a register_dataclass call site with explicit
    lists consumes them, whatever the base."""
    out = _rewrite(
        """
        import jax
        from mypackage import Base
        from jaxrewrite import Static
        class C(Base):
            n: Static[int]
        jax.tree_util.register_dataclass(C, data_fields=[], meta_fields=[])
        """
    )
    assert out.endswith("register_dataclass(C, data_fields=[], meta_fields=('n',))\n")


def test_equinox_converter_runs_and_field_is_static() -> None:
    """The converter survives, runs, and its result is part of the tree structure (static)."""
    eqx = pytest.importorskip("equinox")
    jax = pytest.importorskip("jax")
    out = _rewrite(
        """
        import equinox as eqx
        from jaxrewrite import Static
        class M(eqx.Module):
            n: Static[int] = eqx.field(converter=int)
        """
    )
    module = execute(out, "m_fields.py", "m_fields")
    m = module.M("3")
    assert m.n == 3 and jax.tree_util.tree_leaves(m) == [] and isinstance(m, eqx.Module)
