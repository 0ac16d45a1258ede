"""Per-leaf statics and Static fields reached through the type spellings real code uses.

Each accepted spelling is rewritten and run: its trace count matches the same program written by
hand in plain JAX (the static entry passed as a static argument), and the results agree. Each
spelling that cannot work gets a finding with its code at the marker's line; each neighbour that
works gets a test that ``check`` stays quiet.
"""

from __future__ import annotations

import sys
import textwrap
from typing import Any

import jax
import jax.numpy as jnp
import pytest
from golden_cases import execute

from jaxrewrite import RewriteError, rewrite_source

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


_GENERIC = pytest.mark.skipif(
    sys.version_info < (3, 11), reason="a generic TypedDict/NamedTuple needs 3.11"
)


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
    "spelling",
    _spellings(
        [
            "Pair",
            "Optional[Pair]",
            "Pair | None",
            "Annotated[Pair, 'doc']",
            "GenericPair[jax.Array]",
        ]
    ),
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
    results = [
        module.f(x),
        module.f(x, None),
        module.f(x, cfg),
        module.f(x, cfg),
        module.f(x, None),
        module.f(x),
    ]
    if transform == "jax.jit":
        traces: list[Any] = []

        def hand(n: int | None, x: jax.Array, c: Any) -> Any:
            traces.append(n)
            return jnp.sum(x * (1.0 if n is None else n * c))

        plain = jax.jit(hand, static_argnums=0)
        expected = [
            plain(None, x, None),
            plain(None, x, None),
            plain(3, x, cfg["x"]),
            plain(3, x, cfg["x"]),
        ]
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
        assert (
            module.f({"inner": _inner(x * 2, n), "y": x, "k": k}) == plain(k, n, x, x * 2)
        ).all()
    assert module.TRACES == traces == [(1, 2), (1, 3), (2, 3)]


def test_three_deep_with_optional_and_missing_entries_under_jit() -> None:
    module, _ = _nested(
        """
        @jax.jit
        def f(c: Top):
            outer = c.get("outer")
            TRACES.append(None if outer is None else (outer["k"], outer["inner"]["n"]))
            return c.get("z", 0.0) if outer is None else outer["inner"]["x"] * outer["inner"]["n"] * outer["k"]
        """,  # noqa: E501
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


def _doubling(levels: int) -> str:
    """``C{i}`` holds ``C{i - 1}`` twice: the split spells 2**levels containers."""
    classes = "".join(
        f"class C{i}(TypedDict):\n    a: C{i - 1}\n    b: C{i - 1}\n\n\n"
        for i in range(1, levels + 1)
    )
    return (
        NESTED
        + textwrap.dedent(
            """
        class C0(TypedDict):
            x: jax.Array
            n: Static[int]


        """
        )
        + classes
        + f"@jax.jit\ndef f(d: C{levels}):\n    return d\n"
    )


def test_a_nesting_that_spells_too_many_containers_is_refused_at_the_parameter() -> None:
    """Classes that each hold the one below twice: 4 levels are split (16 inner containers, each
    named), 20 levels would be 2**20 containers spelled in the text, an import that never ended:
    refused (JR126) at the parameter, as soon as the count passes the bound."""
    from jaxrewrite.engine.walk.walker import MOST_NESTED

    lines = rewrite_source(_doubling(4), "m.py").splitlines()
    assert lines[lines.index("def f(d: C4):") - 1].count("'dict', ('n',)") == 16
    source = _doubling(20)
    assert 2**20 > MOST_NESTED
    with pytest.raises(RewriteError) as info:
        rewrite_source(source, "m.py")
    assert info.value.code == "JR126"
    assert info.value.lineno == source.splitlines().index("def f(d: C20):") + 1
    assert f"more than {MOST_NESTED} containers" in str(info.value)
