"""The transform rows added for the ecosystem's other transforms (issue 24), each run for real.

jacfwd, jacrev, jacobian and hessian read like grad (``argnums`` lists what is differentiated);
make_jaxpr takes static positions; custom_vjp and custom_jvp refuse array-typed markers. Every
rewrite is run beside the same program written by hand in plain JAX, and the reasons the table
gives for "positions only" are checked against what the installed JAX does, by running it.
"""

from __future__ import annotations

import textwrap
from functools import partial
from typing import Any

import pytest
from golden_cases import execute

from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite.engine.rulebook.table import NNX_TRANSFORMS, TRANSFORMS, SpecKind

jax = pytest.importorskip("jax")
jnp = jax.numpy

HEAD = (
    "# jaxrewrite: enable\nimport jax\nimport jax.numpy as jnp\n"
    "from jaxrewrite import NoDiff, Static\n\n"
)


def _run(body: str, name: str) -> Any:
    source = HEAD + textwrap.dedent(body)
    return execute(rewrite_source(source, f"{name}.py"), f"{name}.py", name)


def _plain_loss(x: Any, n: int) -> Any:
    for _ in range(n):
        x = jnp.sin(x)
    return (x * x).sum()


JACOBIANS = ["jacfwd", "jacrev", "jacobian", "hessian"]


@pytest.mark.parametrize("name", JACOBIANS)
def test_jacobian_rows_keep_a_static_parameter_a_python_value(name: str) -> None:
    module = _run(
        f"""\
        TRACES = []


        def loss(x, n: Static[int]):
            TRACES.append(n)
            for _ in range(n):  # a tracer here raises TracerIntegerConversionError
                x = jnp.sin(x)
            return (x * x).sum()


        at_call = jax.{name}(loss)
        under_jit = jax.jit(jax.{name}(loss))
        """,
        f"rows_{name}",
    )
    x = jnp.arange(3.0)
    by_hand = getattr(jax, name)(_plain_loss)(x, 2)
    assert jnp.allclose(module.at_call(x, 2), by_hand)
    assert jnp.allclose(module.under_jit(x, 2), by_hand)
    assert jnp.allclose(module.under_jit(x + 1, 2), getattr(jax, name)(_plain_loss)(x + 1, 2))
    # Python ints every time; the jit traced once for n=2 (no retrace when repeated).
    assert all(isinstance(n, int) for n in module.TRACES)
    calls_before = len(module.TRACES)
    module.under_jit(x + 2, 2)
    assert len(module.TRACES) == calls_before


@pytest.mark.parametrize("name", JACOBIANS)
@pytest.mark.parametrize("argnums", ["(0, 1)", "1", "-1"])
def test_jacobian_rows_refuse_a_marked_parameter_in_argnums(name: str, argnums: str) -> None:
    source = HEAD + (
        "def loss(x, n: NoDiff[float]):\n    return x * n\n\n\n"
        f"j = jax.{name}(loss, argnums={argnums})\n"
    )
    with pytest.raises(RewriteError) as caught:
        rewrite_source(source, "m.py")
    assert caught.value.code == "JR121" and name in caught.value.msg


def test_jacobian_rows_read_like_grad() -> None:
    for name in JACOBIANS:
        row = TRANSFORMS[name]
        assert (
            row.spec is SpecKind.DIFF and row.argnums == "argnums" and row.per_leaf == "grad_leaves"
        )


def test_jacobian_decorator_per_leaf_entries_are_held_out() -> None:
    """Per-leaf: grad's helper fits (jacfwd/jacrev pass keyword arguments through
    undifferentiated)."""
    module = _run(
        """\
        from typing import TypedDict


        class Cfg(TypedDict):
            scale: jax.Array
            steps: Static[int]


        @jax.jacrev
        def f(x, cfg: Cfg):
            for _ in range(cfg["steps"]):
                x = x * cfg["scale"]
            return x
        """,
        "rows_jac_leaves",
    )
    got = module.f(jnp.ones(2), {"scale": jnp.float32(2.0), "steps": 3})
    assert jnp.allclose(got, 8.0 * jnp.eye(2))


def test_make_jaxpr_gets_static_positions() -> None:
    module = _run(
        """\
        def body(x, n: Static[int]):
            for _ in range(n):
                x = x + 1.0
            return x


        show = jax.make_jaxpr(body)


        @jax.make_jaxpr
        def shape(x, n: Static[int]):
            return jnp.zeros(n) + x
        """,
        "rows_make_jaxpr",
    )
    by_hand = jax.make_jaxpr(lambda x, n: body_plain(x, n), static_argnums=(1,))(1.0, 3)
    assert str(module.show(1.0, 3)) == str(by_hand)
    assert len(module.shape(1.0, 4).out_avals[0].shape) == 1
    # By keyword: newer JAX infers the name from static_argnums (make_jaxpr is jit's trace), the
    # floor JAX traces it; so the guide says "by position". Either way, never a different jaxpr.
    try:
        assert str(module.show(1.0, n=3)) == str(by_hand)
    except jax.errors.TracerIntegerConversionError:
        pass


def body_plain(x: Any, n: int) -> Any:
    for _ in range(n):
        x = x + 1.0
    return x


def test_make_jaxpr_refuses_a_keyword_only_static() -> None:
    source = HEAD + "@jax.make_jaxpr\ndef f(x, *, n: Static[int]):\n    return x\n"
    with pytest.raises(RewriteError) as caught:
        rewrite_source(source, "m.py")
    assert caught.value.code == "JR110" and "make_jaxpr" in caught.value.msg


# -- custom_vjp / custom_jvp: NoDiff is for non-array values ---------------------------------------

ARRAY_SPELLINGS = [
    "NoDiff[jax.Array]",
    "NoDiff[jnp.ndarray]",
    "'NoDiff[jax.Array]'",
    "Static[NoDiff[jax.Array]]",
    "IndexArray",
    "NoDiff[Int[Array, 'n']]",
    "NoDiff[jaxtyping.Float[jaxtyping.Array, 'n']]",
    "NoDiff[jaxtyping.Array]",
    "NoDiff[numpy.ndarray]",
    "NoDiff[npt.NDArray]",
    "NoDiff[npt.NDArray[numpy.int32]]",
]


@pytest.mark.parametrize("transform", ["custom_vjp", "custom_jvp"])
@pytest.mark.parametrize("spelling", ARRAY_SPELLINGS)
def test_nodiff_array_under_custom_rules_is_refused(transform: str, spelling: str) -> None:
    source = HEAD + textwrap.dedent(
        f"""\
        import jaxtyping, numpy, numpy.typing as npt
        from jaxtyping import Array, Int

        IndexArray = NoDiff[jax.Array]


        @jax.{transform}
        def gather(x, idx: {spelling}):
            return x[idx]
        """
    )
    with pytest.raises(RewriteError) as caught:
        rewrite_source(source, "m.py")
    assert (caught.value.code, caught.value.lineno) == ("JR123", 13)
    assert "zero cotangent" in caught.value.msg


def test_the_refused_program_really_fails_under_jit_by_hand() -> None:
    """The ground truth for JR123: JAX's own nondiff_argnums with an array, under jit."""

    @partial(jax.custom_vjp, nondiff_argnums=(1,))
    def gather(x: Any, idx: Any) -> Any:
        return x[idx]

    gather.defvjp(
        lambda x, idx: (gather(x, idx), None), lambda idx, res, g: (jnp.zeros(3).at[idx].set(g),)
    )
    assert (
        float(jax.grad(lambda x: gather(x, jnp.array(1)))(jnp.ones(3)).sum()) == 1.0
    )  # eager: fine
    with pytest.raises(jax.errors.UnexpectedTracerError):
        jax.jit(jax.grad(lambda x, i: gather(x, i)))(jnp.ones(3), jnp.array(1))


def test_nodiff_callable_and_int_under_custom_vjp_are_kept() -> None:
    module = _run(
        """\
        from typing import Callable


        @jax.custom_vjp
        def apply(x, f: NoDiff[Callable[[jax.Array], jax.Array]], times: NoDiff[int]):
            for _ in range(times):
                x = f(x)
            return x


        def fwd(x, f, times):
            return apply(x, f, times), None


        def bwd(f, times, res, g):
            return (g * 10.0 * times,)


        apply.defvjp(fwd, bwd)
        """,
        "rows_custom_vjp_callable",
    )
    grad = jax.jit(jax.grad(lambda x: module.apply(x, jnp.sin, 2)))(1.0)
    assert float(grad) == 20.0


# -- "positions only": each reason is what the installed JAX does ----------------------------------


def _steps(x: Any, n: Any) -> Any:
    for _ in range(n):
        x = x * 2.0
    return x


def test_checkpoint_static_argnames_leaves_a_name_traced() -> None:
    """Why checkpoint's row has no argnames: the installed JAX's static_argnames does not make the
    parameter static (unless jax_remat3 is on). If a JAX release honours it, this fails: give the
    row ``argnames="static_argnames"`` then, with the version it needs."""
    if getattr(jax.config, "jax_remat3", False):
        pytest.skip("jax_remat3 is on")
    try:
        by_name = jax.checkpoint(_steps, static_argnames=("n",))
    except (
        TypeError
    ):  # the floor JAX has no static_argnames at all: positions only, as the row says
        return
    with pytest.raises(Exception, match="[Tt]racer"):
        jax.grad(lambda x: by_name(x, n=3))(1.0)
    by_position = jax.checkpoint(_steps, static_argnums=(1,))
    assert float(jax.grad(lambda x: by_position(x, 3))(1.0)) == 8.0
    assert "jax_remat3" in TRANSFORMS["checkpoint"].positions_only


def test_custom_vjp_binds_every_argument_to_a_position() -> None:
    """Why custom_vjp's row has no argnames: a keyword-only parameter cannot be non-differentiable,
    nondiff_argnames or not (TypeError at the call); a positional one works by position."""

    def f(x: Any, *, k: Any) -> Any:
        return x * k

    try:
        rule = jax.custom_vjp(f, nondiff_argnames=("k",))
    except TypeError:  # the floor JAX has no nondiff_argnames: positions only
        return
    rule.defvjp(lambda x, *, k: (f(x, k=k), None), lambda k, res, g: (g,))
    with pytest.raises(TypeError, match="positional"):
        rule(1.0, k=2.0)
    assert "binds every argument to a position" in TRANSFORMS["custom_vjp"].positions_only


@pytest.mark.parametrize(
    ("name", "transform"), [("checkpoint", "jax.checkpoint"), ("custom_vjp", "jax.custom_vjp")]
)
def test_keyword_only_refusal_says_why(name: str, transform: str) -> None:
    source = HEAD + f"@{transform}\ndef f(x, *, n: Static[int]):\n    return x\n"
    with pytest.raises(RewriteError) as caught:
        rewrite_source(source, "m.py")
    assert caught.value.code == "JR110"
    assert TRANSFORMS[name].positions_only in caught.value.msg


# -- flax.nnx.grad and value_and_grad --------------------------------------------------------------


def test_nnx_grad_rows_refuse_a_marked_parameter_in_argnums() -> None:
    pytest.importorskip("flax.nnx")
    for name in ("grad", "value_and_grad"):
        assert NNX_TRANSFORMS[name].spec is SpecKind.DIFF
        source = (
            HEAD
            + "from flax import nnx\n\n\n"
            + f"@nnx.{name}(argnums=(0, 1))\ndef f(x, idx: NoDiff[int]):\n    return x * idx\n"
        )
        with pytest.raises(RewriteError) as caught:
            rewrite_source(source, "m.py")
        assert caught.value.code == "JR121" and f"nnx.{name}" in caught.value.msg


def test_nnx_grad_keeps_a_static_parameter_a_python_value() -> None:
    pytest.importorskip("flax.nnx")
    module = _run(
        """\
        from flax import nnx


        class Scale(nnx.Module):
            def __init__(self):
                self.w = nnx.Param(jnp.array(2.0))


        @nnx.jit
        @nnx.grad
        def g(m, x, n: Static[int]):
            for _ in range(n):
                x = x * m.w[...]
            return x
        """,
        "rows_nnx_grad",
    )
    grads = module.g(module.Scale(), 1.0, 3)
    assert (
        float(jax.tree_util.tree_leaves(grads)[0]) == 12.0
    )  # d(w^3)/dw at w=2 (a State on every flax)


def test_nnx_make_jaxpr_gets_static_positions() -> None:
    nnx = pytest.importorskip("flax.nnx")
    if not hasattr(nnx, "make_jaxpr"):
        pytest.skip("this flax has no nnx.make_jaxpr (flax 0.11 and newer)")
    import inspect

    # flax 0.12 refuses nnx.make_jaxpr under its default graph_updates=True: ask for it off.
    options = (
        ", graph_updates=False"
        if "graph_updates" in inspect.signature(nnx.make_jaxpr).parameters
        else ""
    )
    module = _run(
        f"""\
        from functools import partial

        from flax import nnx


        @partial(nnx.make_jaxpr{options})
        def body(x, n: Static[int]):
            for _ in range(n):
                x = x + 1.0
            return x
        """,
        "rows_nnx_make_jaxpr",
    )
    traced = module.body(1.0, 3)
    assert str(traced).count("add") == 3
