"""Per-leaf statics and Static fields reached through the type spellings real code uses.

Each accepted spelling is rewritten and run: its trace count matches the same program written by
hand in plain JAX (the static entry passed as a static argument), and the results agree. Each
spelling that cannot work gets a finding with its code at the marker's line; each neighbour that
works gets a test that ``check`` stays quiet.
"""

from __future__ import annotations

import textwrap
from typing import Any

import jax
import jax.numpy as jnp
import pytest

from golden_cases import execute
from jaxrewrite import rewrite_source
from jaxrewrite.engine.analyze import analyze
from jaxrewrite.engine.filters import EXHAUSTIVE

HEADER = """\
# jaxrewrite: enable
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


@pytest.mark.parametrize("spelling", DICT_SPELLINGS)
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
    "spelling", ["Pair", "Optional[Pair]", "Pair | None", "Annotated[Pair, 'doc']", "GenericPair[jax.Array]"]
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
