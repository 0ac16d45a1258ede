"""Flax NNX: the ``flax.nnx`` rows of the transform table, checked against the installed flax.

What each row says (keywords, no positional parameters) is read off flax's own signatures; every
row is executed in every spelling, by position and by keyword where NNX allows it, and counts
traces. The golden cases in ``golden/nnx/`` pin the rewritten text of the same ground (Modules,
wrappers without functools.wraps, NNX's decorator-factory style) and run there too.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from golden_cases import execute
from support import child_env

from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite.engine.rulebook.table import NNX_TRANSFORMS, SpecKind, Transform, transform_for

flax = pytest.importorskip("flax", minversion="0.10.1")  # the floor: setup.cfg says why
try:
    from flax import nnx
except ImportError as err:  # flax 0.10.4 beside jax 0.4.30, say: a pair its metadata allows
    pytest.skip(f"flax.nnx does not import: {err}", allow_module_level=True)

ROWS = sorted(NNX_TRANSFORMS.items())


def _params(name: str) -> list[inspect.Parameter]:
    if not hasattr(nnx, name):
        pytest.skip(f"flax {flax.__version__} has no nnx.{name}: its row applies to newer releases")
    return list(inspect.signature(getattr(nnx, name)).parameters.values())


# -- the rows against the installed flax ---------------------------------------------------------


@pytest.mark.parametrize(("name", "row"), ROWS, ids=[name for name, _ in ROWS])
def test_row_matches_the_installed_flax_signature(name: str, row: Transform) -> None:
    params = _params(name)
    # The function first, then keyword-only parameters: no keyword binds by position.
    assert params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, params[0]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:]), params
    assert row.positional == ()
    names = {p.name for p in params}
    for keyword in (row.argnums, row.argnames, row.donate_argnums, row.donate_argnames):
        assert keyword is None or keyword in names, (name, keyword)
    # A row without argnames is positions-only because flax has no such keyword.
    if row.argnames is None:
        assert not any(p.endswith("argnames") for p in names), names
    assert row.per_leaf is None  # per-leaf statics are JAX's only (JR106 under NNX)


#: flax.nnx functions that take a static keyword but have no row, and why.
NOT_ROWS = {
    # nnx.jit_partial(fun, *partial_args, static_argnums=...): arguments bound ahead of the call sit
    # between the function and the keywords, so positions depend on a count known only at run time.
    "jit_partial": "positions shifted by *partial_args",
}


def test_every_nnx_transform_with_a_static_spec_has_a_row() -> None:
    """A flax release that adds a transform with a static keyword fails here until it has a row
    (or a reason in NOT_ROWS). vmap's spec is its in_axes, a word other transforms use too."""
    spec_words = (
        "static_argnums",
        "static_argnames",
        "static_broadcasted_argnums",
        "nondiff_argnums",
    )
    with_spec = set()
    for name in dir(nnx):
        obj = getattr(nnx, name)
        if not inspect.isfunction(obj):
            continue
        try:
            params = inspect.signature(obj).parameters
        except (TypeError, ValueError):
            continue
        if any(word in params for word in spec_words):
            with_spec.add(name)
    # Rows for transforms this flax does not have yet (the floor lacks nnx.make_jaxpr) are future
    # rows.
    lists = {
        name
        for name, row in NNX_TRANSFORMS.items()
        if row.spec is SpecKind.LISTS and hasattr(nnx, name)
    }
    assert with_spec - set(NOT_ROWS) == lists
    assert {name for name, row in NNX_TRANSFORMS.items() if row.spec is SpecKind.AXES} == {"vmap"}
    assert "in_axes" in inspect.signature(nnx.vmap).parameters


@pytest.mark.parametrize(("name", "row"), ROWS, ids=[name for name, _ in ROWS])
def test_row_is_found_under_every_path_flax_defines_it(name: str, row: Transform) -> None:
    if not hasattr(nnx, name):
        pytest.skip(f"flax {flax.__version__} has no nnx.{name}: its row applies to newer releases")
    defined = getattr(nnx, name)
    assert transform_for(f"flax.nnx.{name}") is row
    assert (
        transform_for(f"{defined.__module__}.{name}") is row
    )  # flax.nnx.transforms.<module>.<name>
    assert transform_for(f"jax.{name}") is not row  # the families stay apart
    assert (
        transform_for(f"flax.linen.{name}") is not row
    )  # Linen has rows of its own (tests/engine/test_linen.py)


# -- every row, every spelling, executed ----------------------------------------------------------

#: Per row: the marked def (``{deco}`` goes above it), its run-time check, and extra lines after it.
#: Each check fails if the marked parameter is not static (``range(n)`` of a tracer raises).
BODIES: dict[str, tuple[str, str, str]] = {
    "jit": (
        "def f(x, n: Static[int]):\n    TRACES.append(n)\n    return x * len(range(n))\n",
        "assert float(f(1.0, 3)) == 3.0\n"
        "assert float(f(2.0, 3)) == 6.0\n"
        "assert float(f(1.0, n=2)) == 2.0\n"
        "assert TRACES == [3, 2], TRACES\n",
        "",
    ),
    "remat": (
        "def f(x, n: Static[int]):\n    TRACES.append(n)\n    for _ in range(n):\n"
        "        x = jnp.sin(x)\n    return x\n",
        "assert abs(float(jax.grad(f)(0.0, 2)) - 1.0) < 1e-6\n"
        "assert abs(float(jax.grad(lambda x: f(x, n=2))(0.0)) - 1.0) < 1e-6\n"
        "assert set(TRACES) == {2}, TRACES\n",
        "",
    ),
    "vmap": (
        "def f(x, n: Static[int]):\n    TRACES.append(n)\n    return jnp.full(n, x)\n",
        "assert f(jnp.ones(3), 2).shape == (3, 2)\n"
        "assert f(jnp.ones(3), n=4).shape == (3, 4)\n"
        "assert TRACES == [2, 4], TRACES\n",
        "",
    ),
    "pmap": (
        "def f(x, n: Static[int]):\n    TRACES.append(n)\n    return x * len(range(n))\n",
        "d = jax.local_device_count()\n"
        "assert f(jnp.ones(d), 3).tolist() == [3.0] * d\n"
        "assert f(jnp.zeros(d), 3).tolist() == [0.0] * d\n"
        "assert TRACES == [3], TRACES\n",
        "",
    ),
    "custom_vjp": (
        "def f(x, n: NoDiff[int]):\n    TRACES.append(n)\n    return x * len(range(n))\n",
        "assert float(f(2.0, 3)) == 6.0\nassert float(jax.grad(lambda x: f(x, 3))(1.0)) == 30.0\n",
        "def f_fwd(x, n):\n    return f(x, n), None\n\n\n"
        "def f_bwd(n, res, g):\n    _, out_g = g\n    return (out_g * 10 * len(range(n)),)\n\n\n"
        "f.defvjp(f_fwd, f_bwd)\n",
    ),
}

#: How the transform is named: a decorator spelling, or None for a call site ``f = T(body)``.
SPELLINGS: dict[str, str | None] = {
    "attribute": "nnx.{t}",
    "module_alias": "fnnx.{t}",
    "from_import_as": "renamed_{t}",
    "package_path": "flax.nnx.{t}",
    "partial": "partial(nnx.{t})",
    "alias": "alias_{t}",
    "star": "{t}",
    "call_site": None,
}


def _module(t: str, spelling: str) -> str:
    deco = SPELLINGS[spelling]
    body, check, after = BODIES[t]
    star = "from flax.nnx import *  # noqa: F403\n" if spelling == "star" else ""
    head = textwrap.dedent(
        f"""\
        # jaxrewrite: enable
        from functools import partial

        import flax
        import flax.nnx as fnnx
        import jax
        import jax.numpy as jnp
        from flax import nnx
        from flax.nnx import {t} as renamed_{t}
        from jaxrewrite import NoDiff, Static

        TRACES = []
        alias_{t} = partial(nnx.{t})


        """
    )
    head = head.replace("from jaxrewrite import", star + "from jaxrewrite import", 1)
    if deco is None:  # f stays bound once: the def is body, f the transform's result
        code = body.replace("def f(", "def body(", 1) + f"\n\nf = nnx.{t}(body)\n"
    else:
        code = f"@{deco.format(t=t)}\n" + body
    if after:
        code += "\n\n" + after
    return head + code + "\n\ndef _check():\n" + textwrap.indent(check, "    ")


CASES = [(t, s) for t in sorted(BODIES) for s in SPELLINGS]


@pytest.mark.parametrize(("t", "spelling"), CASES, ids=[f"{t}-{s}" for t, s in CASES])
def test_every_row_in_every_spelling_runs_static(t: str, spelling: str) -> None:
    source = _module(t, spelling)
    name = f"nnx_{t}_{spelling}"
    rewritten = rewrite_source(source, f"{name}.py")
    assert rewritten != source, "not recognised"
    execute(rewritten, f"{name}.py", name)._check()


@pytest.mark.parametrize("t", sorted(BODIES))
def test_every_row_fails_without_the_rewrite(t: str) -> None:
    """The checks above are not vacuous: run as written, the marked parameter is traced, or mapped
    (vmap, pmap), or left out of the nondiff arguments that custom_vjp's bwd expects first."""
    name = f"nnx_plain_{t}"
    module = execute(_module(t, "attribute"), f"{name}.py", name, rewritten=False)
    with pytest.raises(
        Exception, match="[Tt]racer|concrete|rank|missing 1 required positional argument"
    ):
        module._check()


# -- where NNX differs from JAX, and what jaxrewrite refuses ---------------------------------------


HEAD = (
    "# jaxrewrite: enable\nimport jax\nimport jax.numpy as jnp\nfrom flax import nnx\n"
    "from jaxrewrite import NoDiff, Static\n"
)


def test_nodiff_module_under_custom_vjp_is_refused_by_nnx_at_call_time() -> None:
    """NNX keeps a Module out of differentiation only through a DiffState: the integer position
    jaxrewrite writes for ``NoDiff`` on a Module parameter is refused by NNX itself, at the call,
    with NNX's message (jaxrewrite cannot tell from the source that the argument is a Module)."""
    source = HEAD + textwrap.dedent(
        """\

        class Scale(nnx.Module):
            def __init__(self):
                self.w = nnx.Param(jnp.array(2.0))


        @nnx.custom_vjp
        def f(m: NoDiff[Scale], x):
            return m.w[...] * x


        def f_fwd(m, x):
            return f(m, x), None


        def f_bwd(m, res, g):
            return (g[1],)


        f.defvjp(f_fwd, f_bwd)
        """
    )
    rewritten = rewrite_source(source, "nodiff_module.py")
    assert "partial(nnx.custom_vjp, nondiff_argnums=(0,))" in rewritten
    module = execute(rewritten, "nodiff_module.py", "nodiff_module")
    with pytest.raises(TypeError, match="nondiff_argnums"):
        module.f(module.Scale(), 1.0)


def test_diffstate_spec_is_left_alone_without_markers_and_refused_with_them() -> None:
    spec = '@nnx.custom_vjp(nondiff_argnums=(nnx.DiffState(0, nnx.PathContains("w")),))\n'
    plain = HEAD + spec + "def f(model, x):\n    return model.w * x\n"
    assert rewrite_source(plain, "m.py") == plain
    marked = HEAD + spec + "def f(model, x, n: Static[int]):\n    return model.w * x\n"
    with pytest.raises(RewriteError) as caught:
        rewrite_source(marked, "m.py")
    assert (caught.value.code, caught.value.lineno) == ("JR111", 6)


def test_per_leaf_statics_are_refused_under_nnx() -> None:
    source = HEAD + textwrap.dedent(
        """\
        from typing import TypedDict


        class Config(TypedDict):
            steps: Static[int]


        @nnx.jit
        def f(x, config: Config):
            return x
        """
    )
    with pytest.raises(RewriteError) as caught:
        rewrite_source(source, "m.py")
    assert caught.value.code == "JR106" and "nnx.jit" in caught.value.msg


def test_vmap_row_writes_axes_like_jax() -> None:
    assert NNX_TRANSFORMS["vmap"].spec is SpecKind.AXES
    source = HEAD + "@nnx.vmap\ndef f(model, x, n: Static[int]):\n    return x\n"
    assert "partial(nnx.vmap, in_axes=(0, 0, None))" in rewrite_source(source, "m.py")


# -- through the hook and the command line ---------------------------------------------------------


_env = child_env


def test_show_diff_and_import_hook_on_an_nnx_module(tmp_path: Path) -> None:
    """The issue's first report: ``jaxrewrite show --diff`` printed nothing for ``@nnx.jit`` and
    the call failed with a ConcretizationTypeError. Now the diff shows and the program runs."""
    (tmp_path / "model.py").write_text(
        HEAD
        + textwrap.dedent(
            """\


            @nnx.jit
            def f(x, n: Static[int]):
                for _ in range(n):
                    x = x + 1
                return x
            """
        )
    )
    (tmp_path / "main.py").write_text(
        "import model\nprint(float(model.f(0.0, 3)), float(model.f(0.0, n=2)))\n"
    )
    shown = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", "show", "--diff", "model.py"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    assert (
        "+@__import__('functools').partial(nnx.jit, static_argnums=(1,), static_argnames=('n',))"
        in shown.stdout
    )
    ran = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", "main.py"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["3.0", "2.0"]
    checked = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", "check", "model.py"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (checked.returncode, checked.stdout) == (
        0,
        "All checks passed!\n",
    )  # a known transform: no JR004
