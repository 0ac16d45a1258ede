"""The ledger (``engine.findings.ledger``) on the issue's cases: each marker is applied, refused, or
reported at its line; what works stays quiet; ``show`` reads one analysis and prints the findings.

A case that another change makes work (per-leaf statics through ``Optional``, say) moves from
reported to applied: the tests hold either way, and fail only when a marker is silent.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from jaxrewrite.commands import show as show_command
from jaxrewrite.commands.check import check_text
from jaxrewrite.engine import build
from jaxrewrite.engine.analysis import EntryKind, State
from jaxrewrite.engine.findings import analyze

HEAD = (
    "# jaxrewrite: enable\nimport dataclasses\n"
    "from typing import Annotated, NamedTuple, Optional, TypedDict\nimport jax\n"
    "from jaxrewrite import STATIC, NoDiff, Static\n"
)


def _ledger(body: str, filename: str = "m.py"):  # type: ignore[no-untyped-def]
    text = HEAD + textwrap.dedent(body)
    analysis = analyze(text, filename, require_pragma=False, lint=True)
    return text, analysis


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def never_silent(body: str) -> list[tuple[str, State, str | None]]:
    """Every entry accounted for; the reported and refused ones with a finding at their line (or,
    for JR001/JR004/JR007 and aliases, the finding that speaks for the def or its uses)."""
    _, analysis = _ledger(body)
    by_line = {(d.line, d.code) for d in analysis.diagnostics}
    for entry in analysis.ledger:
        if entry.state is not State.APPLIED:
            assert entry.code is not None
            if entry.code in ("JR008", "JR009", "JR003"):
                assert (entry.line, entry.code) in by_line, (entry, analysis.diagnostics)
            else:
                assert any(d.code == entry.code for d in analysis.diagnostics), entry
    return [(e.name, e.state, e.code) for e in analysis.ledger]


# -- misses: check speaks at the marker's line -----------------------------------------------------

MISSES = {
    "annotated_metadata_type": """
        @jax.jit
        def f(x, k: Annotated[int, Static, "doc"]):
            return x * k
        """,
    "optional_leaf": """
        class Cfg(NamedTuple):
            n: Static[int]
        @jax.jit
        def f(x, cfg: Optional[Cfg]):
            return x
        """,
    "annotated_leaf": """
        class Cfg(NamedTuple):
            n: Static[int]
        @jax.jit
        def f(x, cfg: Annotated[Cfg, "doc"]):
            return x
        """,
    "alias_leaf": """
        class Cfg(NamedTuple):
            n: Static[int]
        Alias = Cfg
        @jax.jit
        def f(x, cfg: Alias):
            return x
        """,
    "nested_nodiff_under_jit": """
        class Inner(TypedDict):
            n: Static[int]
            w: NoDiff[float]
        class Outer(TypedDict):
            inner: Inner
        @jax.jit
        def f(x, cfg: Outer):
            return x
        """,
    "rebound_registration": """
        @dataclasses.dataclass(frozen=True)
        class Later:
            x: jax.Array
            n: Static[int]
        Later = jax.tree_util.register_dataclass(Later)
        """,
    "pytree_node_class": """
        @jax.tree_util.register_pytree_node_class
        class P:
            n: Static[int]
            def tree_flatten(self):
                return (), self.n
            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls()
        """,
    "nodiff_under_jit": """
        @jax.jit
        def f(x, d: NoDiff[float]):
            return x * d
        """,
    "variable": """
        total: Static[int] = 3
        """,
    "unused_alias": """
        SInt = Static[int]
        """,
    "return_annotation": """
        @jax.jit
        def f(x) -> Static[int]:
            return x
        """,
}


@pytest.mark.parametrize("name", sorted(MISSES))
def test_a_marker_that_does_nothing_is_reported_at_its_line(name: str) -> None:
    body = MISSES[name]
    states = never_silent(body)
    assert states, "the ledger found no marker"
    text, analysis = _ledger(body)
    for entry in analysis.ledger:
        if entry.state is State.REPORTED and entry.code == "JR008":
            found = check_text(text, "m.py")
            assert any(d.line == entry.line and d.code == "JR008" for d in found), found


def test_the_named_misses_are_reported_today() -> None:
    """The ones no other change makes work: a finding with JR008 at the marker's line."""
    for name, needle in [
        ("annotated_metadata_type", "k: Annotated"),
        ("nodiff_under_jit", "d: NoDiff"),
        ("nested_nodiff_under_jit", "w: NoDiff"),
        ("variable", "total: Static"),
        ("unused_alias", "SInt = "),
        ("return_annotation", "-> Static"),
    ]:
        text, analysis = _ledger(MISSES[name])
        line = _line(text, needle)
        assert [d.code for d in analysis.diagnostics if d.line == line] == ["JR008"], (
            name,
            analysis.diagnostics,
        )


def test_an_imported_alias_is_a_finding_never_a_guess(tmp_path: Path) -> None:
    (tmp_path / "types_.py").write_text(
        "from jaxrewrite import Static\nSInt = Static[int]\nPlain = int\n"
    )
    (tmp_path / "other.py").write_text("class Batch:\n    pass\n")
    body = (
        HEAD + "from .types_ import SInt, Plain\nfrom .other import Batch\nfrom .gone import Gone\n"
    )
    body += "@jax.jit\ndef f(x, n: SInt, m: Plain, b: Batch, g: 'Gone'):\n    return x\n"
    path = tmp_path / "m.py"
    path.write_text(body)
    found = check_text(body, str(path))
    line = _line(body, "def f(")
    codes = sorted((d.code, d.col) for d in found if d.line == line)
    n_col, g_col = (
        body.splitlines()[line - 1].index("SInt") + 1,
        body.splitlines()[line - 1].index("'Gone'") + 1,
    )
    assert codes == [("JR009", n_col), ("JR009", g_col)], found
    messages = [d.message for d in found if d.line == line]
    assert "is an alias of a marker in .types_" in messages[0]
    assert "does not read" in messages[1]
    # Without the pragma the module is quiet as before: the ledger speaks where the hook would act.
    assert analyze(body, str(path), lint=True).ledger


# -- per use ---------------------------------------------------------------------------------------


def test_a_marked_def_under_eval_shape_is_reported_at_that_use() -> None:
    text, analysis = _ledger(
        """
        def f(x, n: Static[int]):
            return x
        fast = jax.jit(f)
        shape = jax.eval_shape(f, 1.0, 2)
        body = jax.lax.scan(f, 0.0, None, length=2)
        fine = jax.eval_shape(fast, 1.0, 2)
        """
    )
    codes = {(d.line, d.code) for d in analysis.diagnostics}
    assert (_line(text, "shape = "), "JR012") in codes
    assert (_line(text, "body = "), "JR012") in codes
    assert not any(d.line == _line(text, "fine = ") for d in analysis.diagnostics)
    assert [e.state for e in analysis.ledger] == [State.APPLIED]


def test_make_jaxpr_and_jacfwd_already_speak() -> None:
    text, analysis = _ledger(
        """
        def f(x, n: Static[int]):
            return x
        fast = jax.jit(f)
        jaxpr = jax.make_jaxpr(f)
        jac = jax.jit(jax.jacfwd(f, argnums=(0, 1)))
        """
    )
    assert any(d.code == "JR121" and d.line == _line(text, "jac = ") for d in analysis.diagnostics)


@pytest.mark.parametrize(
    "decorator",
    ["@nnx.scan", "@nnx.scan(length=3)", "@partial(nnx.scan, length=3)", "@nn.scan", "@my_scan"],
)
def test_a_marker_under_a_scan_decorator_is_under_an_unknown_transform(decorator: str) -> None:
    """``@nnx.scan`` applies a transform jaxrewrite does not rewrite: JR004 names it, not JR002's
    "no transform applies to it" (which would send the user looking for a missing decorator)."""
    text, analysis = _ledger(
        f"""
        from functools import partial
        from flax import nnx
        import flax.linen as nn
        my_scan = nnx.scan
        {decorator}
        def f(c, x, n: Static[int]):
            return c, x * n
        """
    )
    codes = [(d.code, d.line) for d in analysis.diagnostics]
    assert codes == [("JR004", _line(text, decorator))], codes
    assert [(e.state, e.code) for e in analysis.ledger] == [(State.REPORTED, "JR004")]


def test_lax_scan_of_a_marked_def_is_not_called_an_unknown_transform() -> None:
    """As a callee, ``scan`` is ``jax.lax.scan``'s, a loop that traces the arguments, not a
    transform that could take a static spec: it is reported, but never as JR004."""
    text, analysis = _ledger(
        """
        def f(c, n: Static[int]):
            return c, n
        out = jax.lax.scan(f, 0, None, length=3)
        """
    )
    codes = [(d.code, d.line) for d in analysis.diagnostics]
    assert ("JR012", _line(text, "out = ")) in codes and "JR004" not in dict(codes), codes


def test_in_shardings_and_a_keyword_only_static() -> None:
    text, analysis = _ledger(
        """
        def f(x, *, n: Static[int]):
            return x
        def g(x, n: Static[int]):
            return x
        a = jax.jit(f, in_shardings=None)
        b = jax.jit(g, in_shardings=None)
        c = jax.jit(f)
        """
    )
    assert [(d.line, d.code) for d in analysis.diagnostics] == [(_line(text, "def f("), "JR010")]


def test_a_static_passed_by_keyword_under_vmap_points_to_the_guide() -> None:
    text, analysis = _ledger(
        """
        def f(x, n: Static[int]):
            return x
        m = jax.vmap(f)
        m(1.0, n=2)
        m(1.0, 2)
        """
    )
    found = [d for d in analysis.diagnostics if d.code == "JR011"]
    assert [d.line for d in found] == [_line(text, "m(1.0, n=2)")]
    assert "(see docs/transforms.md#11-limits)" in found[0].message  # the Limits section


# -- false positives: quiet where everything works -------------------------------------------------

QUIET = {
    "twins": """
        import sys
        if sys.platform:
            def f(x, n: Static[int]):
                return x
        else:
            def f(x, n: Static[int]):
                return x
        fast = jax.jit(f)
        """,
    "callable_markers": """
        from typing import Callable
        Fn = Callable[[jax.Array, Static[int]], jax.Array]
        def apply(f: Fn, x):
            return f(x, 2)
        """,
    "registered_dataclass": """
        @jax.tree_util.register_dataclass
        @dataclasses.dataclass(frozen=True)
        class P:
            x: jax.Array
            n: Static[int]
        """,
    "per_leaf": """
        class Cfg(NamedTuple):
            n: Static[int]
            m: int
        @jax.jit
        def f(x, cfg: Cfg):
            return x
        """,
    "nested_typeddict": """
        class Inner(TypedDict):
            n: Static[int]
        class Outer(TypedDict):
            inner: Inner
        @jax.jit
        def f(x, cfg: Outer):
            return x
        """,
    "nested_two_levels": """
        class Leaf(NamedTuple):
            n: Static[int]
            y: jax.Array
        class Mid(TypedDict):
            a: Leaf
            b: Leaf
        class Outer(TypedDict):
            mid: Mid
        @jax.jit
        def f(x, cfg: Outer):
            return x
        """,
    "annotated_static": """
        SInt = Static[int]
        @jax.jit
        def f(x, a: Annotated[int, STATIC], b: SInt, c: "Static[int]"):
            return x
        """,
    "nodiff_under_grad": """
        def f(x, d: NoDiff[float]):
            return x * d
        g = jax.grad(f)
        """,
    "library_types": """
        from jax import Array
        import numpy as np
        @jax.jit
        def f(x: Array, y: np.ndarray, n: Static[int]):
            return x
        """,
}


@pytest.mark.parametrize("name", sorted(QUIET))
def test_check_stays_quiet_where_everything_works(name: str) -> None:
    _, analysis = _ledger(QUIET[name])
    new = [
        d for d in analysis.diagnostics if d.code in ("JR008", "JR009", "JR010", "JR011", "JR012")
    ]
    assert new == []
    assert all(e.state is State.APPLIED for e in analysis.ledger), analysis.ledger


def test_the_ledger_kinds() -> None:
    body = "".join(
        textwrap.dedent(MISSES[name])
        for name in ("unused_alias", "variable", "optional_leaf", "nodiff_under_jit")
    )
    _, analysis = _ledger(body)
    assert {e.kind for e in analysis.ledger} >= {
        EntryKind.ALIAS,
        EntryKind.VARIABLE,
        EntryKind.FIELD,
        EntryKind.PARAMETER,
    }


def test_the_hook_keeps_no_ledger() -> None:
    assert analyze(HEAD + textwrap.dedent(MISSES["variable"]), "m.py").ledger == ()


# -- show: one analysis, every reported entry -----------------------------------------------------


def test_show_analyzes_once_and_prints_the_ledgers_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        HEAD + "@jax.jit\ndef f(x, n: Static[int], d: NoDiff[float]):\n    return range(x)\n"
    )
    calls = []
    real = build.build_analysis

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(args[1] if len(args) > 1 else kwargs.get("filename"))
        return real(*args, **kwargs)

    monkeypatch.setattr(build, "build_analysis", counting)
    assert show_command.show(str(path), False, "jaxrewrite") == 0
    err = capsys.readouterr().err
    assert len(calls) == 1, calls
    assert "JR008" in err and "JR006" in err
