"""Property tests for per-leaf vmap under vmap's default ``in_axes`` (issue 20, item 3).

Each example renders a module with one TypedDict or NamedTuple parameter that has Static
entries (and no whole-parameter Static), among plain array parameters, an optional defaulted
one and an optional ``*xs``; vmaps it as a decorator or at a call site without ``in_axes``;
and calls it with each argument by position or by keyword. Two checks:

* the text: the rewrite writes no ``in_axes`` (the helper keeps the argument's structure with
  None at its static entries, so vmap's default fits), is a fixed point and keeps every line;
* the meaning: the rewritten module's result equals the same program written by hand in plain
  JAX (``jax.vmap`` of a function closing over the static values), and every static entry is a
  Python int inside.

Kept apart from tests/engine/test_properties.py (already over the size the house rules allow).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from depth import examples
from golden_cases import execute
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaxrewrite import rewrite_source

FILENAME = "prop_leaves_module.py"
RUN = settings(
    max_examples=examples(40),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
BATCH = 3


@dataclass(frozen=True)
class LeafCase:
    kind: str  # "dict" or "namedtuple"
    dynamic: tuple[str, ...]  # the container's traced entries
    static: tuple[str, ...]  # its Static entries
    before: int  # plain array parameters before the container
    after: int  # plain array parameters after it
    default: bool  # a trailing ``scale=1.0``
    star: bool  # a ``*xs`` after everything (mapped, passed by position)
    at_call: bool  # ``jax.vmap(f)`` at a call site, else ``@jax.vmap``
    by_keyword: int  # how many of the last plain/container arguments go by keyword
    pass_default: bool
    n_star: int
    values: tuple[int, ...]  # the static entries' values


@st.composite
def leaf_cases(draw: Any) -> LeafCase:
    entries = draw(
        st.lists(
            st.sampled_from(["w", "b", "n", "k", "steps", "p"]), min_size=1, max_size=4, unique=True
        )
    )
    n_static = draw(st.integers(1, len(entries)))
    static, dynamic = tuple(entries[:n_static]), tuple(entries[n_static:])
    before, after = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    if not dynamic and not before + after:
        before = 1  # vmap needs one mapped array (by hand too)
    star = draw(st.booleans())
    default = draw(st.booleans()) and not star
    named = (
        before + 1 + after
    )  # what can go by keyword (not with *xs: they would then be positional)
    return LeafCase(
        kind=draw(st.sampled_from(["dict", "namedtuple"])),
        dynamic=dynamic,
        static=static,
        before=before,
        after=after,
        default=default,
        star=star,
        at_call=draw(st.booleans()),
        by_keyword=0 if star else draw(st.integers(0, named)),
        pass_default=default and draw(st.booleans()),
        n_star=draw(st.integers(0, 2)) if star else 0,
        values=tuple(draw(st.lists(st.integers(0, 3), min_size=n_static, max_size=n_static))),
    )


def _get(case: LeafCase, key: str) -> str:
    return f'c["{key}"]' if case.kind == "dict" else f"c.{key}"


def _params(case: LeafCase) -> list[str]:
    return [f"a{i}" for i in range(case.before)] + ["c"] + [f"z{i}" for i in range(case.after)]


def render(case: LeafCase) -> str:
    base = "TypedDict" if case.kind == "dict" else "NamedTuple"
    fields = [f"    {k}: jax.Array" for k in case.dynamic] + [
        f"    {k}: Static[int]" for k in case.static
    ]
    params = [p if p != "c" else "c: Cfg" for p in _params(case)]
    if case.star:
        params.append("*xs")
    if case.default:
        params.append("scale=1.0")
    plain = [p for p in _params(case) if p != "c"]
    terms = ["1.0", *plain, *(_get(case, k) for k in case.dynamic)]
    body = [
        f"    SEEN.append(({', '.join(f'type({_get(case, k)}) is int' for k in case.static)},))",
        f"    out = ({' + '.join(terms)})",
        *(f"    out = out * len(range({_get(case, k)} + 1))" for k in case.static),
    ]
    if case.star:
        body.append("    out = out + sum(xs)")
    body.append("    return out * scale" if case.default else "    return out")
    lines = [
        "# jaxrewrite: enable",
        f"from typing import {base}",
        "import jax",
        "from jaxrewrite import Static",
        "SEEN = []",
        f"class Cfg({base}):",
        *fields,
        *([] if case.at_call else ["@jax.vmap"]),
        f"def f({', '.join(params)}):",
        *body,
        *(["mapped = jax.vmap(f)"] if case.at_call else ["mapped = f"]),
    ]
    return "\n".join(lines) + "\n"


def _arguments(case: LeafCase, module: Any) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """(positional, keyword) arguments for one call, and the batched arrays by name."""
    rng = np.random.default_rng(len(case.dynamic) * 7 + case.before * 3 + case.after)
    arrays = {
        p: jnp.asarray(rng.normal(size=BATCH), jnp.float32) for p in _params(case) if p != "c"
    }
    entries = {k: jnp.asarray(rng.normal(size=BATCH), jnp.float32) for k in case.dynamic}
    statics = dict(zip(case.static, case.values))
    cfg = {**entries, **statics} if case.kind == "dict" else module.Cfg(**entries, **statics)
    values = {**arrays, "c": cfg}
    names = _params(case)
    split = len(names) - case.by_keyword
    args = [values[n] for n in names[:split]]
    kwargs = {n: values[n] for n in names[split:]}
    extra = {f"x{i}": jnp.full(BATCH, float(i + 1)) for i in range(case.n_star)}
    args += list(extra.values())
    if case.pass_default:
        extra["scale"] = jnp.full(BATCH, 2.0)
        kwargs["scale"] = extra["scale"]
    return args, kwargs, {**arrays, **entries, **extra}


def _by_hand(case: LeafCase, batched: dict[str, Any]) -> Any:
    """The same program in plain JAX: the static values closed over, every array mapped."""
    statics = dict(zip(case.static, case.values))
    names = list(batched)

    def one(*arrays: Any) -> Any:
        got = dict(zip(names, arrays))
        out = 1.0
        for name in [p for p in _params(case) if p != "c"] + list(case.dynamic):
            out = out + got[name]
        for key in case.static:
            out = out * len(range(statics[key] + 1))
        if case.star:
            out = out + sum((got[f"x{i}"] for i in range(case.n_star)), 0.0)
        return out * got.get("scale", 1.0)

    return jax.vmap(one)(*batched.values())


@given(leaf_cases())
@RUN
def test_per_leaf_vmap_under_default_in_axes_matches_vmap_by_hand(case: LeafCase) -> None:
    source = render(case)
    text = rewrite_source(source, FILENAME)
    assert "in_axes" not in text and "vmap_leaves" in text
    assert text.count("\n") == source.count("\n") and rewrite_source(text, FILENAME) == text
    module = execute(text, FILENAME, "prop_leaves_module")
    args, kwargs, batched = _arguments(case, module)
    out = module.mapped(*args, **kwargs)
    np.testing.assert_allclose(out, _by_hand(case, batched), rtol=1e-6)
    assert module.SEEN == [(True,) * len(case.static)]
