"""Per-leaf Static and NoDiff entries under grad, value_and_grad, pmap and vmap, and at call sites.

Each test rewrites a module, runs it, and checks what the rewrite means: gradients against
hand-split JAX (with None at the held entries, equinox.filter_grad's convention), trace counts
(a static entry retraces, an array does not), and the RewriteErrors with their lines. These
run on the floor JAX (0.4.30) too.
"""

from __future__ import annotations

import functools
import textwrap
from typing import Any

import jax
import jax.numpy as jnp
import pytest
from golden_cases import execute

from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite.leaves import at_call, grad_leaves, pmap_leaves, static_leaves, vmap_leaves

HEADER = """\
# jaxrewrite: enable
from functools import partial
from typing import Callable, NamedTuple, TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import NoDiff, Static

TRACES = []


class Config(TypedDict):
    w: jax.Array
    x: jax.Array
    steps: Static[int]
    act: Static[Callable[[jax.Array], jax.Array]]
    idx: NoDiff[jax.Array]


class Layer(NamedTuple):
    w: jax.Array
    act: Static[str]
    mask: NoDiff[jax.Array]
"""


def _run(body: str, name: str) -> Any:
    source = HEADER + textwrap.dedent(body)
    return execute(rewrite_source(source, f"{name}.py"), f"{name}.py", name)


def _error(body: str) -> RewriteError:
    with pytest.raises(RewriteError) as info:
        rewrite_source(HEADER + textwrap.dedent(body), "m.py")
    return info.value


def _config(steps: int = 2) -> dict[str, Any]:
    return {
        "w": jnp.array([1.0, 2.0, 3.0]),
        "x": jnp.array([0.5, 1.0, -1.0]),
        "steps": steps,
        "act": jnp.tanh,
        "idx": jnp.array([0, 2]),
    }


def _by_hand(w: jax.Array, x: jax.Array, steps: int, act: Any, idx: jax.Array) -> jax.Array:
    out = w * x
    for _ in range(steps):
        out = act(out)
    return out[idx].sum()


LOSS = """
def loss(d: Config, scale=1.0):
    TRACES.append(d["steps"])
    out = d["w"] * d["x"]
    for _ in range(d["steps"]):
        out = d["act"](out)
    return out[d["idx"]].sum() * scale
"""


def test_grad_has_the_argument_structure_with_none_at_held_entries() -> None:
    m = _run(LOSS + "\ng = jax.grad(loss)\n", "lt_grad")
    d = _config()
    g = m.g(d)
    assert set(g) == set(d) and all(g[k] is None for k in ("steps", "act", "idx"))
    want_w, want_x = jax.grad(_by_hand, argnums=(0, 1))(d["w"], d["x"], 2, jnp.tanh, d["idx"])
    assert jnp.allclose(g["w"], want_w) and jnp.allclose(g["x"], want_x)
    assert m.TRACES == [2]
    assert jax.tree_util.tree_leaves(g) == jax.tree_util.tree_leaves({"w": g["w"], "x": g["x"]})


def test_grad_argnums_tuple_and_has_aux_and_the_other_argument() -> None:
    m = _run(
        """
        @partial(jax.grad, argnums=(0, 1), has_aux=True)
        def loss(d: Config, scale):
            out = d["w"] * d["x"]
            for _ in range(d["steps"]):
                out = d["act"](out)
            return out[d["idx"]].sum() * scale, d["steps"]
        """,
        "lt_grad_aux",
    )
    (g, g_scale), aux = m.loss(_config(3), 2.0)
    assert aux == 3 and g["steps"] is None and g["idx"] is None
    d = _config()
    assert jnp.allclose(g_scale, _by_hand(d["w"], d["x"], 3, jnp.tanh, d["idx"]))


def test_value_and_grad_on_a_namedtuple() -> None:
    m = _run(
        """
        @jax.value_and_grad
        def loss(layer: Layer, x):
            y = layer.w * x * layer.mask
            return (jnp.tanh(y) if layer.act == "tanh" else y).sum()
        """,
        "lt_vg_nt",
    )
    layer = m.Layer(jnp.array([1.0, 2.0]), "linear", jnp.array([1.0, 0.0]))
    value, g = m.loss(layer, 3.0)
    assert float(value) == 3.0
    assert isinstance(g, m.Layer) and g.act is None and g.mask is None
    assert jnp.allclose(g.w, jnp.array([3.0, 0.0]))


def test_a_missing_key_of_a_total_false_dict_stays_missing_under_grad() -> None:
    m = _run(
        """
        class Opt(TypedDict, total=False):
            w: jax.Array
            steps: Static[int]


        @jax.grad
        def loss(d: Opt):
            return (d["w"] ** d.get("steps", 1)).sum()
        """,
        "lt_total_false",
    )
    assert set(m.loss({"w": jnp.ones(2)})) == {"w"}
    g = m.loss({"w": jnp.ones(2), "steps": 3})
    assert g["steps"] is None and jnp.allclose(g["w"], 3.0)


def test_a_per_leaf_argument_outside_argnums_is_split_too() -> None:
    m = _run(
        """
        @jax.grad
        def loss(x, d: Config):
            out = d["w"] * x
            for _ in range(d["steps"]):
                out = d["act"](out)
            return out[d["idx"]].sum()
        """,
        "lt_other_arg",
    )
    d = _config()
    assert jnp.allclose(
        m.loss(d["x"], d), jax.grad(_by_hand, argnums=1)(d["w"], d["x"], 2, jnp.tanh, d["idx"])
    )


def test_jit_over_grad_retraces_only_when_a_static_entry_changes() -> None:
    m = _run(
        LOSS
        + """

@jax.jit
@jax.value_and_grad
def step(d: Config):
    return loss(d)


fast = jax.jit(jax.grad(loss))
""",
        "lt_jit_grad",
    )
    d = _config()
    value, g = m.step(d)
    m.step({**d, "w": jnp.zeros(3), "idx": jnp.array([1, 1])})
    assert m.TRACES == [2]
    m.step({**d, "steps": 1})
    assert m.TRACES == [2, 1]
    assert jnp.allclose(value, _by_hand(d["w"], d["x"], 2, jnp.tanh, d["idx"]))
    m.TRACES.clear()
    g = m.fast(d, 2.0)
    m.fast({**d, "x": jnp.ones(3)}, 3.0)  # new arrays, a new traced scale: no retrace
    assert m.TRACES == [2]
    m.fast({**d, "act": jnp.sin}, 2.0)
    assert m.TRACES == [2, 2]
    want = jax.grad(_by_hand)(d["w"], d["x"], 2, jnp.tanh, d["idx"])
    assert jnp.allclose(g["w"], 2.0 * want) and g["act"] is None


def test_jit_call_site_with_keywords_and_a_whole_parameter_static() -> None:
    m = _run(
        LOSS.replace("scale=1.0", "scale: Static[float] = 1.0").replace(
            'TRACES.append(d["steps"])', 'TRACES.append((d["steps"], scale))'
        )
        + "\nfast = jax.jit(loss)\nfaster = jax.jit(loss, static_argnames=('scale',))\n",
        "lt_jit_call",
    )
    d = _config()
    m.fast(d, 2.0)
    m.fast({**d, "w": jnp.ones(3)}, 2.0)
    m.fast(d, scale=2.0)
    m.faster(d=d, scale=3.0)
    assert m.TRACES == [
        (2, 2.0),
        (2, 2.0),
        (2, 3.0),
    ]  # by position, by name (a new key), another scale


def test_vmap_decorator_and_call_site() -> None:
    m = _run(
        """
        class Flags(TypedDict):
            x: jax.Array
            power: Static[int]


        @partial(jax.vmap, in_axes=({"x": 0, "power": None}, None))
        def fun(dic: Flags, k):
            TRACES.append(dic["power"])
            return dic["x"] ** dic["power"] * k


        def plain(dic: Flags, k):
            TRACES.append(dic["power"])
            return dic["x"] ** dic["power"] + k


        mapped = jax.vmap(plain, (0, None))
        twice = jax.vmap(jax.vmap(plain, in_axes=(0, None)), in_axes=(0, None))
        """,
        "lt_vmap",
    )
    assert jnp.allclose(m.fun({"x": jnp.arange(3.0), "power": 2}, 2.0), 2.0 * jnp.arange(3.0) ** 2)
    assert jnp.allclose(
        m.mapped({"x": jnp.arange(3.0), "power": 3}, 1.0), jnp.arange(3.0) ** 3 + 1.0
    )
    assert m.twice({"x": jnp.ones((2, 3)), "power": 1}, 0.0).shape == (2, 3)
    assert m.TRACES == [2, 3, 1]


def test_pmap_broadcasts_static_entries_and_maps_the_rest() -> None:
    m = _run(
        """
        class Flags(TypedDict):
            x: jax.Array
            scale: jax.Array
            square: Static[bool]


        @partial(jax.pmap, axis_name="i", in_axes=({"x": 0, "scale": None, "square": None}, None))
        def fun(dic: Flags, k):
            TRACES.append(dic["square"])
            out = dic["x"] * dic["scale"] + k
            return jax.lax.psum(out * out if dic["square"] else out, "i")


        def plain(dic: Flags, n: Static[int]):
            TRACES.append((dic["square"], n))
            return dic["x"] * n


        mapped = jax.pmap(plain)
        """,
        "lt_pmap",
    )
    n = jax.local_device_count()
    d = {"x": jnp.ones(n), "scale": jnp.float32(2.0), "square": True}
    assert jnp.allclose(m.fun(d, 1.0), 9.0 * n)
    m.fun({**d, "x": jnp.zeros(n)}, 1.0)
    assert m.TRACES == [True]
    assert jnp.allclose(m.fun({**d, "square": False}, 1.0), 3.0 * n)
    assert jnp.allclose(m.mapped({**d, "scale": jnp.ones(n)}, 3), 3.0)  # pmap's default in_axes=0
    assert m.TRACES == [True, False, (True, 3)]


def test_registered_dataclass_keeps_static_fields_in_the_structure_under_grad_and_pmap() -> None:
    m = _run(
        """
        import dataclasses


        @jax.tree_util.register_dataclass
        @dataclasses.dataclass(frozen=True)
        class Params:
            w: jax.Array
            steps: Static[int]


        @jax.grad
        def loss(p: Params):
            return (p.w ** p.steps).sum()


        @jax.pmap
        def mapped(p: Params):
            TRACES.append(p.steps)
            return p.w * p.steps
        """,
        "lt_dataclass",
    )
    g = m.loss(m.Params(jnp.array([2.0]), 3))
    assert g.steps == 3 and jnp.allclose(g.w, 12.0)
    n = jax.local_device_count()
    m.mapped(m.Params(jnp.ones(n), 2))
    m.mapped(m.Params(jnp.zeros(n), 2))
    assert m.TRACES == [2]


# -- refusals -----------------------------------------------------------------------------------


def test_whole_parameter_static_in_argnums_is_refused_at_the_parameter() -> None:
    err = _error(
        """
        @partial(jax.grad, argnums=(0, 1))
        def loss(x, n: Static[int]):
            return x * n
        """
    )
    assert err.code == "JR121" and err.lineno == HEADER.count("\n") + 3
    assert "'n' is Static" in str(err.msg) and "grad" in str(err.msg)


def test_nodiff_differentiated_at_a_call_site_is_refused_at_the_call() -> None:
    err = _error(
        """
        def loss(mask: NoDiff[jax.Array], x):
            return (x * mask).sum()


        both = jax.value_and_grad(loss, argnums=-2)
        """
    )
    assert err.code == "JR121" and err.lineno == HEADER.count("\n") + 6
    assert "'mask' is NoDiff" in str(err.msg) and "value_and_grad" in str(err.msg)


def test_whole_parameter_static_outside_argnums_passes_through() -> None:
    m = _run(
        """
        @jax.grad
        def loss(x, n: Static[int], mask: NoDiff[jax.Array]):
            for _ in range(n):
                x = jnp.sin(x)
            return (x * mask).sum()
        """,
        "lt_outside",
    )
    assert jnp.allclose(
        m.loss(jnp.ones(2), 1, jnp.array([1.0, 0.0])), jnp.array([jnp.cos(1.0), 0.0])
    )


def test_argnums_not_a_literal_with_marked_parameters_is_refused() -> None:
    err = _error(
        """
        WHICH = [0]  # a list: it may change before grad reads it


        @partial(jax.grad, argnums=WHICH)
        def loss(x, n: Static[int]):
            return x * n
        """
    )
    assert err.code == "JR111"


def test_per_leaf_under_a_transform_without_a_helper_is_refused() -> None:
    err = _error(
        """
        @jax.checkpoint
        def f(d: Config):
            return d["w"]
        """
    )
    assert err.code == "JR106" and "not checkpoint" in str(err.msg)


@pytest.mark.parametrize(
    "use",
    [
        "@jax.checkpoint\ndef f(d: Config):\n    return d['w']\n",
        "def f(d: Config):\n    return d['w']\n\n\ng = jax.checkpoint(f)\n",
    ],
)
def test_a_decorator_and_a_call_site_are_completed_alike(use: str) -> None:
    """One function completes both (``walk.walker.complete_use``): the per-leaf refusal
    comes before what the written text would need, here a module that binds ``__import__``
    (JR122), at a decorator as at a call site."""
    err = _error("__import__ = print\n\n\n" + use)
    assert err.code == "JR106"


def test_per_leaf_at_a_factory_call_site_is_refused() -> None:
    err = _error(
        """
        def f(d: Config):
            return d["w"]


        inline_jit = jax.jit(inline=True)
        fast = inline_jit(f)
        """
    )
    assert err.code == "JR107" and err.lineno == HEADER.count("\n") + 7


def test_nodiff_only_dict_needs_no_helper_under_jit() -> None:
    text = rewrite_source(
        HEADER
        + textwrap.dedent(
            """
            class Data(TypedDict):
                x: jax.Array
                idx: NoDiff[jax.Array]


            @jax.jit
            def f(d: Data):
                return d["x"][d["idx"]]


            g = jax.grad(lambda d: 0.0)
            """
        ),
        "m.py",
    )
    assert "@jax.jit\n" in text and "leaves" not in text


# -- the run-time helpers on their own ---------------------------------------------------------

SPEC = (("d", 0, "dict", ("n",)),)


def test_static_leaves_refuses_positional_options_the_transform_refuses() -> None:
    """jax.jit's options are keyword-only (on the installed JAX): the helper refuses a
    positional one as jax.jit itself does, not later at the first call."""
    with pytest.raises(TypeError) as plain:
        jax.jit(lambda d: d, None)
    with pytest.raises(TypeError, match="positional argument"):
        static_leaves(jax.jit, lambda d: d, SPEC, None)
    assert "positional argument" in str(plain.value)


def test_static_leaves_refuses_a_donated_name_the_function_lacks_as_jax_jit_does() -> None:
    with pytest.raises(ValueError, match="invalid argnames"):
        jax.jit(lambda d: d, donate_argnames=("nope",))
    with pytest.raises(ValueError, match="invalid argnames"):
        static_leaves(jax.jit, lambda d: d, SPEC, donate_argnames=("nope",))


def test_helpers_refuse_a_non_dict_argument() -> None:
    f = grad_leaves(jax.grad, lambda d: d["x"], SPEC)
    with pytest.raises(TypeError, match="must be a dict"):
        f([1.0])


def test_grad_leaves_does_not_modify_the_callers_dict() -> None:
    d = {"x": jnp.float32(2.0), "n": 3}
    g = grad_leaves(jax.grad, lambda d: d["x"] ** d["n"], SPEC)(d)
    assert d == {"x": 2.0, "n": 3} and g == {"x": 12.0, "n": None}


def test_pmap_leaves_shifts_positions_and_reads_partial_options() -> None:
    seen: dict[str, Any] = {}

    def fake_pmap(fun: Any, *args: Any, **keywords: Any) -> Any:
        seen.update(keywords, args=args)
        return fun

    transform = functools.partial(fake_pmap, in_axes=(0, None), donate_argnums=(1,))
    f = pmap_leaves(transform, lambda d, k: (d, k), SPEC, "i", static_broadcasted_argnums=(1, -1))
    assert seen == {
        "args": ("i",),
        "in_axes": (None, 0, None),
        "donate_argnums": (2,),
        "static_broadcasted_argnums": (0, 2, -1),
    }
    assert f({"x": 1, "n": 2}, 3) == ({"x": 1, "n": 2}, 3)


def test_vmap_leaves_and_at_call_name_the_users_function() -> None:
    def scaled(d: dict[str, Any]) -> Any:
        return d["x"] * d["n"]

    f = at_call("vmap_leaves", jax.vmap, SPEC)(scaled)
    assert f.__name__ == "scaled" and f.__wrapped__ is scaled
    assert jnp.allclose(f({"x": jnp.arange(3.0), "n": 2}), 2.0 * jnp.arange(3.0))
    assert vmap_leaves(jax.vmap, scaled, SPEC)({"x": jnp.ones(2), "n": 1}).shape == (2,)
