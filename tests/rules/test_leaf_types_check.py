"""``check`` on what per-leaf statics and Static fields must hash: unhashable statics not spelled
as types (defaults, module classes), the rows that hash nothing, and Static fields of classes
registered by the user's own flatten. Split from test_leaf_types.py, which rewrites and runs the
type spellings themselves.
"""

from __future__ import annotations

import dataclasses
import functools
import textwrap
from typing import Any

import jax
import jax.numpy as jnp
import pytest

from jaxrewrite import rewrite_source
from jaxrewrite.commands.check import check_text

# -- check: unhashable statics not spelled as types, and transforms that hash nothing ---------


def _codes(source: str) -> list[tuple[int, str]]:
    """(line, code) of each finding ``check`` prints for ``source``."""
    return [(d.line, d.code) for d in check_text(source, "m.py")]


CHECK_HEADER = """\
# jaxrewrite: enable
import dataclasses
import functools
from typing import overload

import jax
from jaxrewrite import Static
"""


@pytest.mark.parametrize(
    "default, kind",
    [
        ("[2, 2]", "list"),
        ("{}", "dict"),
        ("{1, 2}", "set"),
        ("[i for i in range(2)]", "list"),
        ("(1, [2])", "tuple holding a list"),
    ],
)
def test_unhashable_default_is_reported_at_the_marker(default: str, kind: str) -> None:
    source = (
        CHECK_HEADER + f"\n\n@jax.jit\ndef f(x,\n      dims: Static = {default}):\n    return x\n"
    )
    found = check_text(source, "m.py")
    assert [(d.line, d.code) for d in found] == [(12, "JR003")]
    assert f"its default is a {kind}" in found[0].message


@pytest.mark.parametrize("default", ["(2, 2)", "None", "frozenset({1})", "2", "'a'"])
def test_hashable_default_is_quiet(default: str) -> None:
    assert (
        _codes(CHECK_HEADER + f"\n\n@jax.jit\ndef f(x, dims: Static = {default}):\n    return x\n")
        == []
    )


@pytest.mark.parametrize("spelling", ["'list'", "'dict[str, int]'", "'typing.List[int]'", "'Cfg'"])
def test_a_string_under_the_marker_is_the_type_it_names(spelling: str) -> None:
    """``Static["list"]`` is read as ``Static[list]`` (as JR016 reads ``Static["float"]``), and
    quoted as written."""
    source = CHECK_HEADER + (
        "import typing\n\n\n@dataclasses.dataclass\nclass Cfg:\n    n: int\n\n\n"
        f"@jax.jit\ndef f(x, a: Static[{spelling}]):\n    return x\n"
    )
    found = check_text(source, "m.py")
    assert [(d.line, d.code) for d in found] == [(17, "JR003")]
    assert f"annotated {spelling}" in found[0].message


#: Every spelling of an array type (``engine.rulebook.table.ARRAY_TYPES``, jaxtyping's dtypes),
#: under Static: JAX cannot hash an array, so each is JR003, as ``jax.Array`` is.
ARRAY_SPELLINGS = [
    "jax.Array",
    "jnp.ndarray",
    "np.ndarray",
    "npt.NDArray",
    "npt.NDArray[np.float32]",
    "jax.typing.ArrayLike",
    "jaxtyping.Array",
    "jaxtyping.ArrayLike",
    "jaxtyping.Float[jaxtyping.Array, 'n']",
    "'jaxtyping.Int[jax.Array, \"n\"]'",
]


@pytest.mark.parametrize("spelling", ARRAY_SPELLINGS)
@pytest.mark.parametrize("transform", ["jax.jit", "jax.pmap"])
def test_static_array_types_are_unhashable(spelling: str, transform: str) -> None:
    source = CHECK_HEADER + (
        "import jax.numpy as jnp, jax.typing, jaxtyping, numpy as np, numpy.typing as npt\n\n\n"
        f"@{transform}\ndef f(x, a: Static[{spelling}]):\n    return x\n"
    )
    found = check_text(source, "m.py")
    assert [(d.line, d.code) for d in found] == [(12, "JR003")]
    assert spelling.strip("'") in found[0].message


def test_a_static_array_really_fails_under_jit() -> None:
    """The ground truth for the spellings above: JAX refuses an array as a static argument."""
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        jax.jit(lambda x, a: x, static_argnums=1)(1.0, jnp.ones(2))


@pytest.mark.parametrize(
    "decorator, body, reported",
    [
        ("@dataclasses.dataclass", "a: int", True),
        ("@dataclasses.dataclass()", "a: int", True),
        ("@dataclasses.dataclass(eq=True)", "a: int", True),
        ("@dataclasses.dataclass(frozen=True)", "a: int", False),
        ("@dataclasses.dataclass(unsafe_hash=True)", "a: int", False),
        # eq=False hashes by identity: each instance is its own cache entry, as for any object
        ("@dataclasses.dataclass(eq=False)", "a: int", False),
        ("@dataclasses.dataclass", "a: int\n    def __hash__(self):\n        return 0", False),
        ("", "def __eq__(self, other):\n        return True", True),
        (
            "",
            "def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__",
            False,
        ),
        ("", "a: int", False),
    ],
)
def test_module_classes_that_cannot_be_hashed(decorator: str, body: str, reported: bool) -> None:
    source = CHECK_HEADER + (
        f"\n\n{decorator}\nclass Config:\n    {body}\n\n\n@jax.jit\n"
        "def f(x, cfg: Static[Config]):\n    return x\n"
    )
    line = source.splitlines().index("def f(x, cfg: Static[Config]):") + 1
    assert _codes(source) == ([(line, "JR003")] if reported else [])


@pytest.mark.parametrize(
    "decorator, body, reported",
    [
        ("@dataclasses.dataclass", "a: int", True),
        ("@dataclasses.dataclass(frozen=True)", "a: int", False),
        ("@dataclasses.dataclass(eq=False)", "a: int", False),
        ("", "def __eq__(self, other):\n        return True", True),
        (
            "",
            "def __eq__(self, other):\n        return True\n    def __hash__(self):\n"
            "        return 0",
            False,
        ),
        ("", "a = 1", False),
    ],
)
@pytest.mark.parametrize("spelling", ["@jax.jit", "@functools.partial(jax.jit)"])
def test_a_static_self_follows_its_class(
    decorator: str, body: str, reported: bool, spelling: str
) -> None:
    """``self: Static`` hashes the instance: the class decides, as for ``cfg: Static[Config]``."""
    source = CHECK_HEADER + (
        f"\n\n{decorator}\nclass Model:\n    {body}\n\n    {spelling}\n"
        "    def apply(self: Static, x):\n        return x\n"
    )
    line = source.splitlines().index("    def apply(self: Static, x):") + 1
    found = check_text(source, "m.py")
    assert [(d.line, d.code) for d in found] == ([(line, "JR003")] if reported else [])
    assert not reported or "'self' is Static but annotated Model (" in found[0].message


#: Arguments a call of the module passes to a Static parameter that JAX cannot hash, and the
#: kind each is named by; a tuple, a frozenset and a frozen instance are quiet.
PASSED = [
    ("[2, 3]", "a list"),
    ("{2: 3}", "a dict"),
    ("{2, 3}", "a set"),
    ("[i for i in range(2)]", "a list"),
    ("jnp.array([2, 3])", "a JAX array (jnp.array(...))"),
    ("jnp.zeros(2)", "a JAX array (jnp.zeros(...))"),
    ("np.arange(3)", "a NumPy array (np.arange(...))"),
    ("Plain(2)", "a Plain instance (a dataclass with eq and without frozen=True"),
    ("(2, 3)", None),
    ("frozenset({2})", None),
    ("Frozen(2)", None),
    ("np.int32(2)", None),
]
_CALLS = """\
import jax.numpy as jnp
import numpy as np


@dataclasses.dataclass
class Plain:
    a: int


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: int


@jax.jit
def scale(x, shape: Static):
    return x


def main():
    return {call}
"""


@pytest.mark.parametrize("arg, kind", PASSED, ids=[a for a, _ in PASSED])
@pytest.mark.parametrize(
    "form",
    ["scale(1.0, {arg})", "scale(1.0, shape={arg})", "jax.jit(g, static_argnums=1)(1.0, {arg})"],
)
def test_an_unhashable_value_passed_to_a_static_parameter(
    arg: str, kind: str | None, form: str
) -> None:
    """What a call of the module passes is followed, by position or keyword, through a decorated
    def or a transform's result called at once; each reported value fails under JAX itself
    (``test_the_values_reported_fail_under_jax``)."""
    source = CHECK_HEADER + _CALLS.format(call=form.format(arg=arg))
    if form.startswith("jax.jit(g"):
        source = source.replace("@jax.jit\ndef scale(x, shape: Static)", "def g(x, shape: Static)")
    found = [d for d in check_text(source, "m.py") if d.code != "JR002"]
    if kind is None:
        assert found == []
        return
    line = len(source.splitlines())
    assert [(d.line, d.code) for d in found] == [(line, "JR003")], found
    assert f"'shape' is Static but the call on line {line} passes it {kind}" in found[0].message


@pytest.mark.parametrize("arg, kind", PASSED, ids=[a for a, _ in PASSED])
def test_the_values_reported_fail_under_jax(arg: str, kind: str | None) -> None:
    """The same program in plain JAX: each value check reports raises JAX's own ValueError."""
    import numpy as np

    @dataclasses.dataclass
    class Plain:
        a: int

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        a: int

    scale = jax.jit(lambda x, shape: x, static_argnames="shape")
    value = eval(arg, {"jnp": jnp, "np": np, "Plain": Plain, "Frozen": Frozen})
    if kind is None:
        assert float(scale(1.0, shape=value)) == 1.0
    else:
        with pytest.raises(ValueError, match="Non-hashable static arguments"):
            scale(1.0, shape=value)


def test_a_static_self_of_an_unhashable_class_fails_under_jax() -> None:
    """The ground truth for ``self: Static``: JAX hashes the instance."""

    @dataclasses.dataclass
    class Model:
        k: int

        @functools.partial(jax.jit, static_argnums=0)
        def apply(self, x):
            return x * self.k

    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        Model(2).apply(1.0)


def test_unhashable_class_at_run_time_is_what_check_says() -> None:
    """The reported dataclass does fail under jit; the frozen one does not."""

    @dataclasses.dataclass
    class Plain:
        a: int

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        a: int

    f = jax.jit(lambda x, cfg: x * cfg.a, static_argnums=1)
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        f(1.0, Plain(2))
    assert float(f(1.0, Frozen(2))) == 2.0


QUIET = {
    "vmap_list": """
        @jax.vmap
        def f(x, dims: Static[list]):
            return x * len(dims)
    """,
    "custom_vjp_dict": """
        @functools.partial(jax.custom_vjp, nondiff_argnums=())
        def f(x, opts: Static[dict]):
            return x

        def fwd(x, opts):
            return x, None

        def bwd(opts, res, g):
            return (g,)

        f.defvjp(fwd, bwd)
    """,
    "custom_jvp_list": """
        @jax.custom_jvp
        def f(x, opts: Static[list]):
            return x
    """,
    "grad_dict": """
        @jax.grad
        def f(x, opts: Static[dict]):
            return x
    """,
    "checkpoint_list": """
        @jax.checkpoint
        def f(x, opts: Static[list]):
            return x
    """,
    "twin_defs": """
        if jax.__version__ > "0":
            def f(x, n: Static[int]):
                return x * n
        else:
            def f(x, n: Static[int]):
                return x + n

        g = jax.jit(f)
    """,
    "overload_stubs": """
        @overload
        def f(x: int, n: Static[int]) -> int: ...
        @overload
        def f(x: float, n: Static[int]) -> float: ...
        @jax.jit
        def f(x, n: Static[int]):
            return x * n
    """,
    "overload_stubs_call_site": """
        @overload
        def f(x: int, n: Static[int]) -> int: ...
        @overload
        def f(x: float, n: Static[int]) -> float: ...
        def f(x, n: Static[int]):
            return x * n

        g = jax.jit(f)
    """,
    "nnx_grad": """
        from flax import nnx

        @nnx.grad
        def f(model, n: Static[int]):
            return 0.0
    """,
    "nnx_jit_over_nnx_grad": """
        from flax import nnx

        @nnx.jit
        @nnx.grad
        def f(model, n: Static[int]):
            return 0.0
    """,
    "jit_call_over_nnx_grad": """
        from flax import nnx

        def f(model, n: Static[int]):
            return 0.0

        g = jax.jit(nnx.grad(f))
    """,
    "nnx_vmap_list": """
        from flax import nnx

        @nnx.vmap
        def f(x, dims: Static[list]):
            return x
    """,
}


@pytest.mark.parametrize("name", sorted(QUIET))
def test_check_stays_quiet_where_everything_works(name: str) -> None:
    if "nnx" in name:
        pytest.importorskip("flax.nnx")
    assert _codes(CHECK_HEADER + textwrap.dedent(QUIET[name])) == []


@pytest.mark.parametrize(
    "name, found",
    [
        ("twin_defs_differ", (16, "JR119")),
        ("overload_without_transform", (13, "JR002")),
        ("jit_over_vmap_list", (9, "JR003")),
    ],
)
def test_check_still_speaks_next_to_the_quiet_cases(name: str, found: tuple[int, str]) -> None:
    sources = {
        "twin_defs_differ": """
            if jax.__version__ > "0":
                def f(x, n: Static[int]):
                    return x * n
            else:
                def f(x, m):
                    return x + m

            g = jax.jit(f)
        """,
        "overload_without_transform": """
            @overload
            def f(x: int, n: Static[int]) -> int: ...
            @overload
            def f(x: float, n: Static[int]) -> float: ...
            def f(x, n: Static[int]):
                return x * n
        """,
        "jit_over_vmap_list": """
            def f(x, dims: Static[list]):
                return x

            g = jax.jit(jax.vmap(f))
        """,
    }
    codes = _codes(CHECK_HEADER + textwrap.dedent(sources[name]))
    assert found in codes, codes


@pytest.mark.parametrize("transform", ["vmap", "grad", "checkpoint", "custom_vjp", "custom_jvp"])
def test_rows_that_hash_nothing_take_a_list_and_a_dict(transform: str) -> None:
    """What ``hashes_statics=False`` claims, run: a list and a dict at the static position work."""
    x = jnp.ones(3)

    def body(x: jax.Array, s: Any) -> jax.Array:
        return x * len(s)

    for value in ([1], {"a": 1}):
        if transform == "vmap":
            out = jax.vmap(body, in_axes=(0, None))(x, value)
        elif transform == "grad":
            out = jax.grad(lambda x, s: jnp.sum(body(x, s)))(x, value)
        elif transform == "checkpoint":
            out = jax.jit(
                lambda x, value=value: jax.checkpoint(body, static_argnums=(1,))(x, value)
            )(x)
        elif transform == "custom_vjp":
            f = jax.custom_vjp(body, nondiff_argnums=(1,))
            f.defvjp(lambda x, s: (body(x, s), None), lambda s, r, g: (g,))
            out = jax.jit(lambda x, f=f, value=value: f(x, value))(x)
        else:
            g = jax.custom_jvp(body, nondiff_argnums=(1,))
            g.defjvp(lambda s, p, t: (body(p[0], s), t[0]))
            out = jax.jvp(lambda x, g=g, value=value: g(x, value), (x,), (x,))[0]
        assert out.shape == (3,)
    from jaxrewrite.engine.rulebook.table import TRANSFORMS

    assert TRANSFORMS[transform].hashes_statics is False
    assert TRANSFORMS["jit"].hashes_statics and TRANSFORMS["pmap"].hashes_statics


# -- Static fields of classes registered by the user's own flatten ----------------------------

OPAQUE = {
    "node_class_decorator": ("@jax.tree_util.register_pytree_node_class\nclass A:", ""),
    "keys_class_decorator": ("@jax.tree_util.register_pytree_with_keys_class\nclass A:", ""),
    "node_call": (
        "class A:",
        "jax.tree_util.register_pytree_node(A, lambda a: ((), None), lambda aux, c: A())",
    ),
    "keys_call": (
        "class A:",
        "jax.tree_util.register_pytree_with_keys(A, lambda a: ((), None), lambda aux, c: A())",
    ),
    "class_call_rebound": ("class A:", "A = jax.tree_util.register_pytree_node_class(A)"),
}


@pytest.mark.parametrize("name", sorted(OPAQUE))
def test_static_field_of_a_class_with_its_own_flatten_is_reported(name: str) -> None:
    head, after = OPAQUE[name]
    source = (
        CHECK_HEADER
        + f"\n\n{head}\n    x: jax.Array\n    n: Static[int]\n    m: int\n\n\n{after}\n"
    )
    found = check_text(source, "m.py")
    line = source.splitlines().index("    n: Static[int]") + 1
    assert [(d.line, d.code) for d in found] == [(line, "JR020")]
    assert "register_dataclass" in found[0].message and "aux data" in found[0].message
    # the hook leaves the class as written: nothing it could write would be read
    assert rewrite_source(source, "m.py") == source
