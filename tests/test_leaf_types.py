"""Per-leaf statics and Static fields reached through the type spellings real code uses.

Each accepted spelling is rewritten and run: its trace count matches the same program written by
hand in plain JAX (the static entry passed as a static argument), and the results agree. Each
spelling that cannot work gets a finding with its code at the marker's line; each neighbour that
works gets a test that ``check`` stays quiet.
"""

from __future__ import annotations

import dataclasses
import sys
import textwrap
from typing import Any

import jax
import jax.numpy as jnp
import pytest

from golden_cases import GOLDEN, execute
from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite.commands.check import check_text

HEADER = """\
# jaxrewrite: enable
import sys
import typing
import typing as t
from dataclasses import dataclass
from typing import Annotated, Generic, NamedTuple, Optional, TypedDict, TypeVar, Union

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []
T = TypeVar("T")


class Cfg(TypedDict):
    x: jax.Array
    n: Static[int]


class Pair(NamedTuple):
    x: jax.Array
    n: Static[int]


if sys.version_info >= (3, 11):  # a generic TypedDict or NamedTuple: Python 3.11 and newer

    class GenericCfg(TypedDict, Generic[T]):
        x: T
        n: Static[int]

    class GenericPair(NamedTuple, Generic[T]):
        x: T
        n: Static[int]


Alias = Cfg
AliasOfAlias = Alias
"""


def _module(body: str, name: str) -> Any:
    source = HEADER + textwrap.dedent(body)
    out = rewrite_source(source, f"{name}.py")
    assert out.count("\n") == source.count("\n")
    return execute(out, f"{name}.py", name), out


def _hand() -> tuple[Any, list[Any]]:
    """The same program in plain JAX: the static entry is a static argument."""
    traces: list[Any] = []

    def f(n: int, x: jax.Array | None) -> Any:
        traces.append(n)
        return None if x is None else x * n

    return jax.jit(f, static_argnums=0), traces


DICT_SPELLINGS = [
    "Cfg",
    "'Cfg'",
    "Optional[Cfg]",
    "typing.Optional[Cfg]",
    "t.Optional[Cfg]",
    "Cfg | None",
    "None | Cfg",
    "'Cfg | None'",
    "Union[Cfg, None]",
    "Union[None, Cfg]",
    "Annotated[Cfg, 'doc']",
    "Optional[Annotated[Cfg, 'doc']]",
    "Alias",
    "AliasOfAlias",
    "Optional[Alias]",
    "GenericCfg[jax.Array]",
    "Optional[GenericCfg[jax.Array]]",
]


_GENERIC = pytest.mark.skipif(sys.version_info < (3, 11), reason="a generic TypedDict/NamedTuple needs 3.11")


def _spellings(spellings: list[str]) -> list[Any]:
    return [pytest.param(s, marks=_GENERIC) if "Generic" in s else s for s in spellings]


@pytest.mark.parametrize("spelling", _spellings(DICT_SPELLINGS))
def test_typeddict_spellings_are_per_leaf_and_static(spelling: str) -> None:
    module, out = _module(
        f"""
        @jax.jit
        def f(c: {spelling}):
            TRACES.append(c["n"])
            return c["x"] * c["n"]
        """,
        "leaf_dict",
    )
    assert "static_leaves" in out
    hand, traces = _hand()
    x = jnp.arange(3.0)
    for n in (2, 2, 3, 2):
        assert (module.f({"x": x, "n": n}) == hand(n, x)).all()
        assert (module.f({"x": x + 1, "n": n}) == hand(n, x + 1)).all()
    assert module.TRACES == traces == [2, 3]


@pytest.mark.parametrize(
    "spelling", _spellings(["Pair", "Optional[Pair]", "Pair | None", "Annotated[Pair, 'doc']", "GenericPair[jax.Array]"])
)
def test_namedtuple_spellings_are_per_leaf_and_static(spelling: str) -> None:
    module, out = _module(
        f"""
        @jax.jit
        def f(c: {spelling}):
            TRACES.append(c.n)
            return c.x * c.n
        """,
        "leaf_tuple",
    )
    assert "static_leaves" in out
    hand, traces = _hand()
    cls = module.GenericPair if "Generic" in spelling else module.Pair
    x = jnp.arange(3.0)
    for n in (2, 2, 3, 2):
        assert (module.f(cls(x, n)) == hand(n, x)).all()
    assert module.TRACES == traces == [2, 3]


@pytest.mark.parametrize("transform", ["jax.jit", "jax.vmap", "jax.grad", "jax.value_and_grad"])
def test_optional_none_and_a_config_alternate(transform: str) -> None:
    """None passes whole (nothing held), a Cfg is split; switching retraces, repeats do not."""
    module, out = _module(
        f"""
        @{transform}
        def f(x, c: Optional[Cfg] = None):
            TRACES.append(None if c is None else c["n"])
            scale = 1.0 if c is None else c["n"] * c["x"]
            return jnp.sum(x * scale)
        """,
        "leaf_none",
    )
    assert "_leaves" in out
    x = jnp.arange(3.0)
    cfg = {"x": jnp.full(3, 2.0), "n": 3}
    results = [module.f(x), module.f(x, None), module.f(x, cfg), module.f(x, cfg), module.f(x, None), module.f(x)]
    if transform == "jax.jit":
        traces: list[Any] = []

        def hand(n: int | None, x: jax.Array, c: Any) -> Any:
            traces.append(n)
            return jnp.sum(x * (1.0 if n is None else n * c))

        plain = jax.jit(hand, static_argnums=0)
        expected = [plain(None, x, None), plain(None, x, None), plain(3, x, cfg["x"]), plain(3, x, cfg["x"])]
        expected += [plain(None, x, None), plain(None, x, None)]
        # not passed and passed None are two pytree structures for JAX's cache, as by hand
        assert module.TRACES == [None, None, 3] and traces == [None, 3]
        for got, want in zip(results, expected):
            assert jnp.allclose(got if not isinstance(got, tuple) else got[0], want)
    else:
        assert 3 in module.TRACES and None in module.TRACES
    if transform == "jax.grad":
        assert jnp.allclose(results[2], jnp.full(3, 6.0))
        assert jnp.allclose(results[0], jnp.ones(3))


def test_optional_none_positional_and_by_keyword() -> None:
    module, _ = _module(
        """
        @jax.jit
        def f(c: Optional[Cfg], y):
            TRACES.append(None if c is None else c["n"])
            return y if c is None else y * c["n"]
        """,
        "leaf_none_kw",
    )
    y = jnp.float32(1.0)
    assert float(module.f(None, y)) == 1.0
    assert float(module.f(c=None, y=y)) == 1.0
    assert float(module.f({"x": y, "n": 4}, y)) == 4.0
    assert float(module.f(c={"x": y, "n": 4}, y=y)) == 4.0
    assert float(module.f(None, y)) == 1.0
    assert module.TRACES == [None, None, 4, 4]  # by position and by keyword: JAX's own two entries


def test_a_union_of_two_classes_is_not_guessed() -> None:
    source = HEADER + textwrap.dedent(
        """
        @jax.jit
        def f(c: Union[Cfg, Pair]):
            return c
        """
    )
    assert "static_leaves" not in rewrite_source(source, "m.py")


# -- a class registered by assigning the registration to its own name -------------------------

REGISTERED_AGAIN = """\
# jaxrewrite: enable
import dataclasses

import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


@dataclasses.dataclass
class Later:
    x: jax.Array
    n: Static[int]


Later = jax.tree_util.register_dataclass(Later{keywords})


@jax.jit
def f(c):
    TRACES.append(c.n)
    return c.x * c.n
"""


@pytest.mark.parametrize(
    "keywords",
    ["", ", data_fields=['x'], meta_fields=['n']", ", data_fields=('x',)", ", ['x'], ['n']"],
    ids=["bare", "both", "data_only", "positional"],
)
def test_register_dataclass_assigned_to_its_own_name(keywords: str) -> None:
    source = REGISTERED_AGAIN.format(keywords=keywords)
    out = rewrite_source(source, "later.py")
    assert "meta_fields=" in out.splitlines()[16] or "['n']" in out.splitlines()[16]
    module = execute(out, "later.py", "later")
    traces: list[int] = []

    def hand(n: int, x: jax.Array) -> jax.Array:  # the same program by hand: n a static argument
        traces.append(n)
        return x * n

    plain = jax.jit(hand, static_argnums=0)
    x = jnp.arange(3.0)
    for n in (2, 2, 3, 2):
        assert (module.f(module.Later(x, n)) == plain(n, x)).all()
        assert (module.f(module.Later(x + 1, n)) == plain(n, x + 1)).all()
    assert module.TRACES == traces == [2, 3]


def test_register_dataclass_rebound_to_something_else_is_not_followed() -> None:
    source = REGISTERED_AGAIN.format(keywords="") + "\nLater = dict\n"
    out = rewrite_source(source, "later.py")
    assert out.splitlines()[16] == "Later = jax.tree_util.register_dataclass(Later)"


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
    [("[2, 2]", "list"), ("{}", "dict"), ("{1, 2}", "set"), ("[i for i in range(2)]", "list"), ("(1, [2])", "tuple holding a list")],
)
def test_unhashable_default_is_reported_at_the_marker(default: str, kind: str) -> None:
    source = CHECK_HEADER + f"\n\n@jax.jit\ndef f(x,\n      dims: Static = {default}):\n    return x\n"
    found = check_text(source, "m.py")
    assert [(d.line, d.code) for d in found] == [(12, "JR003")]
    assert f"its default is a {kind}" in found[0].message


@pytest.mark.parametrize("default", ["(2, 2)", "None", "frozenset({1})", "2", "'a'"])
def test_hashable_default_is_quiet(default: str) -> None:
    assert _codes(CHECK_HEADER + f"\n\n@jax.jit\ndef f(x, dims: Static = {default}):\n    return x\n") == []


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
        ("", "def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__", False),
        ("", "a: int", False),
    ],
)
def test_module_classes_that_cannot_be_hashed(decorator: str, body: str, reported: bool) -> None:
    source = CHECK_HEADER + f"\n\n{decorator}\nclass Config:\n    {body}\n\n\n@jax.jit\ndef f(x, cfg: Static[Config]):\n    return x\n"
    line = source.splitlines().index("def f(x, cfg: Static[Config]):") + 1
    assert _codes(source) == ([(line, "JR003")] if reported else [])


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
            out = jax.jit(lambda x: jax.checkpoint(body, static_argnums=(1,))(x, value))(x)
        elif transform == "custom_vjp":
            f = jax.custom_vjp(body, nondiff_argnums=(1,))
            f.defvjp(lambda x, s: (body(x, s), None), lambda s, r, g: (g,))
            out = jax.jit(lambda x: f(x, value))(x)
        else:
            g = jax.custom_jvp(body, nondiff_argnums=(1,))
            g.defjvp(lambda s, p, t: (body(p[0], s), t[0]))
            out = jax.jvp(lambda x: g(x, value), (x,), (x,))[0]
        assert out.shape == (3,)
    from jaxrewrite.engine.table import TRANSFORMS

    assert TRANSFORMS[transform].hashes_statics is False
    assert TRANSFORMS["jit"].hashes_statics and TRANSFORMS["pmap"].hashes_statics


# -- Static fields of classes registered by the user's own flatten ----------------------------

OPAQUE = {
    "node_class_decorator": ("@jax.tree_util.register_pytree_node_class\nclass A:", ""),
    "keys_class_decorator": ("@jax.tree_util.register_pytree_with_keys_class\nclass A:", ""),
    "node_call": ("class A:", "jax.tree_util.register_pytree_node(A, lambda a: ((), None), lambda aux, c: A())"),
    "keys_call": ("class A:", "jax.tree_util.register_pytree_with_keys(A, lambda a: ((), None), lambda aux, c: A())"),
    "class_call_rebound": ("class A:", "A = jax.tree_util.register_pytree_node_class(A)"),
}


@pytest.mark.parametrize("name", sorted(OPAQUE))
def test_static_field_of_a_class_with_its_own_flatten_is_reported(name: str) -> None:
    head, after = OPAQUE[name]
    source = CHECK_HEADER + f"\n\n{head}\n    x: jax.Array\n    n: Static[int]\n    m: int\n\n\n{after}\n"
    found = check_text(source, "m.py")
    line = source.splitlines().index("    n: Static[int]") + 1
    assert [(d.line, d.code) for d in found] == [(line, "JR020")]
    assert "register_dataclass" in found[0].message and "aux data" in found[0].message
    # the hook leaves the class as written: nothing it could write would be read
    assert rewrite_source(source, "m.py") == source


# -- containers nested in containers, to any depth --------------------------------------------

NESTED = """\
# jaxrewrite: enable
import dataclasses
from typing import NamedTuple, Optional, TypedDict

import jax
import jax.numpy as jnp
from jaxrewrite import NoDiff, Static

TRACES = []


class Inner(TypedDict):
    x: jax.Array
    n: Static[int]
    m: NoDiff[jax.Array]


class Outer(TypedDict):
    inner: Inner
    y: jax.Array
    k: Static[int]


class Top(TypedDict, total=False):
    outer: Optional[Outer]
    z: jax.Array


class Leg(NamedTuple):
    x: jax.Array
    n: Static[int]


class Body(NamedTuple):
    leg: Leg
    d: Inner


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Later:
    x: jax.Array
    n: Static[int]


class Holder(TypedDict):
    later: Later
"""


def _nested(body: str, name: str) -> tuple[Any, str]:
    source = NESTED + textwrap.dedent(body)
    out = rewrite_source(source, f"{name}.py")
    assert out.count("\n") == source.count("\n")
    return execute(out, f"{name}.py", name), out


def _inner(x: Any, n: int) -> dict[str, Any]:
    return {"x": x, "n": n, "m": jnp.float32(1.0)}


def test_typeddict_in_typeddict_under_jit() -> None:
    module, out = _nested(
        """
        @jax.jit
        def f(c: Outer):
            TRACES.append((c["k"], c["inner"]["n"]))
            return c["y"] * c["k"] + c["inner"]["x"] * c["inner"]["n"]
        """,
        "nested_jit",
    )
    assert "('k', ('inner', 'dict', ('n',)))" in out
    traces: list[Any] = []

    def hand(k: int, n: int, y: jax.Array, x: jax.Array) -> jax.Array:
        traces.append((k, n))
        return y * k + x * n

    plain = jax.jit(hand, static_argnums=(0, 1))
    x = jnp.arange(3.0)
    for k, n in [(1, 2), (1, 2), (1, 3), (2, 3), (1, 2)]:
        got = module.f({"inner": _inner(x, n), "y": x + 1, "k": k})
        assert (got == plain(k, n, x + 1, x)).all()
        assert (module.f({"inner": _inner(x * 2, n), "y": x, "k": k}) == plain(k, n, x, x * 2)).all()
    assert module.TRACES == traces == [(1, 2), (1, 3), (2, 3)]


def test_three_deep_with_optional_and_missing_entries_under_jit() -> None:
    module, _ = _nested(
        """
        @jax.jit
        def f(c: Top):
            outer = c.get("outer")
            TRACES.append(None if outer is None else (outer["k"], outer["inner"]["n"]))
            return c.get("z", 0.0) if outer is None else outer["inner"]["x"] * outer["inner"]["n"] * outer["k"]
        """,
        "nested_deep",
    )
    x = jnp.arange(3.0)
    outer = {"inner": _inner(x, 2), "y": x, "k": 3}
    assert (module.f({"outer": outer}) == x * 6).all()
    assert (module.f({"outer": {**outer, "y": x + 1}}) == x * 6).all()
    assert float(module.f({"outer": None, "z": jnp.float32(5.0)})) == 5.0
    assert float(module.f({"z": jnp.float32(4.0)})) == 4.0
    assert float(module.f({"outer": None, "z": jnp.float32(7.0)})) == 7.0
    assert (module.f({"outer": {**outer, "k": 1}}) == x * 2).all()
    assert module.TRACES == [(3, 2), None, None, (1, 2)]  # outer None and absent: two structures


def test_nested_under_grad_holds_static_and_nodiff() -> None:
    module, out = _nested(
        """
        @jax.grad
        def f(c: Outer):
            TRACES.append((c["k"], c["inner"]["n"]))
            return jnp.sum(c["y"] * c["k"] + c["inner"]["x"] * c["inner"]["n"] * c["inner"]["m"])
        """,
        "nested_grad",
    )
    assert "('inner', 'dict', ('n', 'm'))" in out
    x = jnp.arange(3.0)
    g = module.f({"inner": _inner(x, 2), "y": x, "k": 3})
    assert g["k"] is None and g["inner"]["n"] is None and g["inner"]["m"] is None
    assert (g["y"] == 3.0).all() and (g["inner"]["x"] == 2.0).all()
    # by hand: differentiate only what is not held
    hand = jax.grad(lambda y, x: jnp.sum(y * 3 + x * 2 * 1.0), argnums=(0, 1))(x, x)
    assert (hand[0] == g["y"]).all() and (hand[1] == g["inner"]["x"]).all()


def test_nested_under_vmap_keeps_structure() -> None:
    module, _ = _nested(
        """
        @jax.vmap
        def f(c: Outer):
            TRACES.append((c["k"], c["inner"]["n"]))
            return c["y"] * c["k"] + c["inner"]["x"] * c["inner"]["n"]
        """,
        "nested_vmap",
    )
    x = jnp.arange(3.0)
    got = module.f({"inner": {"x": x, "n": 2, "m": x}, "y": x, "k": 3})
    assert (got == x * 5).all()
    assert module.TRACES == [(3, 2)]


def test_namedtuple_and_typeddict_in_namedtuple_under_jit() -> None:
    module, out = _nested(
        """
        @jax.jit
        def f(b: Body):
            TRACES.append((b.leg.n, b.d["n"]))
            return b.leg.x * b.leg.n + b.d["x"] * b.d["n"]
        """,
        "nested_tuple",
    )
    assert "('leg', 'namedtuple', ('n',)), ('d', 'dict', ('n',))" in out
    x = jnp.arange(3.0)
    for a, n in [(1, 2), (1, 2), (2, 2)]:
        body = module.Body(module.Leg(x, a), _inner(x, n))
        assert (module.f(body) == x * (a + n)).all()
        assert (module.f(body._replace(leg=module.Leg(x + 1, a))) == (x + 1) * a + x * n).all()
    assert module.TRACES == [(1, 2), (2, 2)]


def test_registered_dataclass_in_typeddict_is_static_by_its_meta_fields() -> None:
    module, out = _nested(
        """
        @jax.jit
        def f(h: Holder):
            TRACES.append(h["later"].n)
            return h["later"].x * h["later"].n
        """,
        "nested_dataclass",
    )
    assert "meta_fields=('n',)" in out
    x = jnp.arange(3.0)
    for n in (2, 2, 3):
        assert (module.f({"later": module.Later(x, n)}) == x * n).all()
        assert (module.f({"later": module.Later(x + 1, n)}) == (x + 1) * n).all()
    assert module.TRACES == [2, 3]


def test_a_container_holding_itself_is_refused_at_the_field() -> None:
    source = NESTED + textwrap.dedent(
        """
        class Tree(TypedDict):
            n: Static[int]
            child: Optional["Tree"]


        @jax.jit
        def f(t: Tree):
            return t
        """
    )
    with pytest.raises(RewriteError) as info:
        rewrite_source(source, "m.py")
    assert info.value.code == "JR126"
    assert info.value.lineno == source.splitlines().index('    child: Optional["Tree"]') + 1


def test_nested_ahead_of_time_and_under_pmap() -> None:
    module, _ = _nested(
        """
        @jax.jit
        def f(c: Outer):
            return c["y"] * c["k"] + c["inner"]["x"] * c["inner"]["n"]


        @jax.pmap
        def p(c: Outer):
            return c["y"] * c["k"] + c["inner"]["x"] * c["inner"]["n"]
        """,
        "nested_aot",
    )
    x = jnp.arange(3.0)
    c = {"inner": _inner(x, 2), "y": x, "k": 3}
    compiled = module.f.lower(c).compile()
    assert (compiled({**c, "y": x + 1}) == (x + 1) * 3 + x * 2).all()
    with pytest.raises(TypeError, match="lowered for the static entries"):
        compiled({**c, "inner": _inner(x, 5)})
    batch = {"inner": {"x": x[None], "n": 2, "m": x[None]}, "y": x[None], "k": 3}
    assert (module.p(batch)[0] == x * 5).all()


def test_lint_is_a_pure_function_of_the_analysis() -> None:
    """Run again on the finished Analysis (scopes released), lint gives the same findings."""
    from jaxrewrite.engine.analyze import analyze
    from jaxrewrite.engine.lint import lint

    source = (GOLDEN / "check" / "jr003_not_types.py").read_text(encoding="utf-8")
    source += (GOLDEN / "check" / "jr020_own_flatten.py").read_text(encoding="utf-8").split('"""', 2)[2]
    analysis = analyze(source, "m.py", require_pragma=False, lint=True)
    assert analysis.lint_facts is not None
    again = sorted(lint(analysis), key=lambda d: (d.line, d.col))
    assert again == [d for d in analysis.diagnostics if d.code < "JR1"]
    assert {d.code for d in again} == {"JR003", "JR020"}
    assert analyze(source, "m.py", require_pragma=False).lint_facts is None  # the hook reads nothing
