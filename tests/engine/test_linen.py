"""Flax Linen: the ``flax.linen`` rows of the transform table, checked against the installed flax.

Each row's positional parameters are read off flax's own signature; each rewrite is run beside the
same module written by hand (the hand-written module is the truth: Linen's ``nn.jit`` checks its
shifted ``static_argnums`` against the method's own signature, so what cannot work by hand is
refused at import, JR124, and the test shows the hand-written module failing the same way).
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any

import pytest
from golden_cases import execute

from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite.engine.rulebook.table import LINEN_TRANSFORMS, SpecKind, Transform, transform_for

pytest.importorskip("flax", minversion="0.10.1")
try:
    import flax.linen as nn
except ImportError as err:  # pragma: no cover - a flax whose metadata admits a jax it cannot use
    pytest.skip(f"flax.linen does not import: {err}", allow_module_level=True)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

ROWS = sorted(LINEN_TRANSFORMS.items())


@pytest.mark.parametrize(("name", "row"), ROWS, ids=[name for name, _ in ROWS])
def test_row_matches_the_installed_flax_signature(name: str, row: Transform) -> None:
    params = list(inspect.signature(getattr(nn, name)).parameters.values())
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    positional = [p.name for p in params if p.kind in kinds][1:]
    assert list(row.positional[: len(positional)]) == positional
    names = {p.name for p in params}
    for keyword in (row.argnums, row.argnames, row.donate_argnums, row.donate_argnames):
        assert keyword is None or keyword in names, (name, keyword)
    if row.argnames is None and row.spec is SpecKind.LISTS:
        assert not any(p.endswith("argnames") for p in names) or name in ("checkpoint", "remat"), (
            names
        )
    assert row.per_leaf is None


@pytest.mark.parametrize(("name", "row"), ROWS, ids=[name for name, _ in ROWS])
def test_row_is_found_under_every_path_flax_defines_it(name: str, row: Transform) -> None:
    defined = getattr(nn, name)
    assert transform_for(f"flax.linen.{name}") is row
    assert transform_for(f"{defined.__module__}.{name}") is row
    assert transform_for(f"flax.nnx.{name}") is not row


HEAD = textwrap.dedent(
    """\
    # jaxrewrite: enable
    from functools import partial

    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    from jaxrewrite import Static

    TRACES = []


    """
)


def _pair(body: str, name: str) -> tuple[Any, Any]:
    """(rewritten module, the same module as written by hand): ``{deco}`` in ``body`` is the
    Linen decorator, ``{hand}`` its hand-written keywords."""
    marked, by_hand = body.split("#: by hand\n")
    rewritten = execute(rewrite_source(HEAD + marked, f"{name}.py"), f"{name}.py", name)
    plain = execute(HEAD + by_hand, f"{name}_hand.py", f"{name}_hand", rewritten=False)
    return rewritten, plain


JIT = """\
class M(nn.Module):
    @nn.jit
    @nn.compact
    def __call__(self, n: Static[int], x, y):
        TRACES.append(n)
        w = self.param("w", lambda k, s: jnp.full(s, 2.0), (2,))
        for _ in range(n):
            x = x * w
        return x + y
#: by hand
class M(nn.Module):
    @partial(nn.jit, static_argnums=(1,), static_argnames=("n",))
    @nn.compact
    def __call__(self, n, x, y):
        TRACES.append(n)
        w = self.param("w", lambda k, s: jnp.full(s, 2.0), (2,))
        for _ in range(n):
            x = x * w
        return x + y
"""


def test_jit_counts_self_and_runs_like_the_module_by_hand() -> None:
    rewritten, plain = _pair(JIT, "linen_jit")
    x = jnp.ones(2)
    for module in (rewritten, plain):
        m = module.M()
        variables = m.init(jax.random.PRNGKey(0), 3, x, x)
        a = m.apply(variables, 3, x, x)
        b = m.apply(variables, n=3, x=x + 1, y=x)
        module.TRACES.clear()
        m.apply(variables, 3, x + 2, x)  # repeated: no new trace
        assert module.TRACES == []
        module.result = (a.tolist(), b.tolist())
    assert rewritten.result == plain.result == ([9.0, 9.0], [17.0, 17.0])


def test_jit_keyword_only_static_is_static_by_name() -> None:
    rewritten, plain = _pair(
        JIT.replace(
            "def __call__(self, n: Static[int], x, y)",
            "def __call__(self, x, y, *, n: Static[int])",
        )
        .replace("def __call__(self, n, x, y)", "def __call__(self, x, y, *, n)")
        .replace("static_argnums=(1,), ", "static_argnums=(), "),
        "linen_jit_kwonly",
    )
    x = jnp.ones(2)
    for module in (rewritten, plain):
        m = module.M()
        variables = m.init(jax.random.PRNGKey(0), x, x, n=2)
        assert m.apply(variables, x, x, n=2).tolist() == [5.0, 5.0]
        assert all(isinstance(n, int) for n in module.TRACES)


def test_jit_static_among_the_last_two_is_refused_and_fails_by_hand() -> None:
    source = HEAD + JIT.split("#: by hand\n")[0].replace(
        "(self, n: Static[int], x, y)", "(self, x, y, n: Static[int])"
    )
    with pytest.raises(RewriteError) as caught:
        rewrite_source(source, "m.py")
    assert caught.value.code == "JR124" and "keyword-only" in caught.value.msg

    by_hand = HEAD + JIT.split("#: by hand\n")[1].replace("(self, n, x, y)", "(self, x, y, n)")
    by_hand = by_hand.replace("static_argnums=(1,)", "static_argnums=(3,)")
    module = execute(by_hand, "linen_tail_hand.py", "linen_tail_hand", rewritten=False)
    with pytest.raises(ValueError, match="positional arguments"):
        module.M().init(jax.random.PRNGKey(0), jnp.ones(2), jnp.ones(2), 3)


def test_remat_counts_self_and_differentiates_like_the_module_by_hand() -> None:
    rewritten, plain = _pair(
        """\
class M(nn.Module):
    @nn.remat
    @nn.compact
    def __call__(self, x, n: Static[int]):
        w = self.param("w", lambda k, s: jnp.full(s, 2.0), (2,))
        for _ in range(n):
            x = x * w
        return x
#: by hand
class M(nn.Module):
    @partial(nn.remat, static_argnums=(2,))
    @nn.compact
    def __call__(self, x, n):
        w = self.param("w", lambda k, s: jnp.full(s, 2.0), (2,))
        for _ in range(n):
            x = x * w
        return x
""",
        "linen_remat",
    )
    grads = []
    for module in (rewritten, plain):
        m = module.M()
        variables = m.init(jax.random.PRNGKey(0), jnp.ones(2), 3)
        g = jax.grad(lambda v, m=m: m.apply(v, jnp.ones(2), 3).sum())(variables)
        grads.append(g["params"]["w"].tolist())
    assert grads[0] == grads[1] == [12.0, 12.0]


def test_vmap_leaves_self_out_of_in_axes() -> None:
    rewritten, plain = _pair(
        """\
class M(nn.Module):
    @partial(nn.vmap, variable_axes={"params": None}, split_rngs={"params": False})
    @nn.compact
    def __call__(self, x, n: Static[int]):
        w = self.param("w", lambda k, s: jnp.ones(s), (2,))
        return jnp.full(n, (x * w).sum())
#: by hand
class M(nn.Module):
    @partial(nn.vmap, in_axes=(0, None), variable_axes={"params": None}, split_rngs={"params": False})
    @nn.compact
    def __call__(self, x, n):
        w = self.param("w", lambda k, s: jnp.ones(s), (2,))
        return jnp.full(n, (x * w).sum())
""",  # noqa: E501
        "linen_vmap",
    )
    shapes = []
    for module in (rewritten, plain):
        m = module.M()
        variables = m.init(jax.random.PRNGKey(0), jnp.ones((3, 2)), 4)
        shapes.append(m.apply(variables, jnp.ones((3, 2)), 4).shape)
    assert shapes == [(3, 4), (3, 4)]


def test_vmap_static_on_the_module_itself_is_refused() -> None:
    source = HEAD + "@nn.vmap\ndef f(module: Static, x):\n    return x\n"
    with pytest.raises(RewriteError) as caught:
        rewrite_source(source, "m.py")
    assert caught.value.code == "JR113"


@pytest.mark.parametrize(
    "spelling",
    [
        "nn.jit",
        "flax.linen.jit",
        "linen_jit",
        "partial(nn.jit, donate_argnums=())",
        "nn.jit(static_argnums=())",
    ],
)
def test_jit_spellings_are_recognised(spelling: str) -> None:
    source = HEAD.replace(
        "import flax.linen as nn\n",
        "import flax\nimport flax.linen as nn\nfrom flax.linen import jit as linen_jit\n",
    ) + (
        f"class M(nn.Module):\n    @{spelling}\n"
        "    def __call__(self, n: Static[int], x, y):\n        return x\n"
    )
    if spelling.endswith("(static_argnums=())"):  # a factory call: keywords are completed in place
        assert "nn.jit(static_argnums=(1,), static_argnames=('n',))" in rewrite_source(
            source, "m.py"
        )
        return
    assert "static_argnums=(1,)" in rewrite_source(source, "m.py")
