"""``check --fix`` per function: what it can fix is fixed, each refusal names why and what to
write; a module that does not use jaxrewrite gets the transform's own keywords."""

from __future__ import annotations

import jax.numpy as jnp
import pytest

from jaxrewrite.engine.findings import trace_findings
from jaxrewrite.migrate.fix import fix_source

_PLAIN = """import jax
import jax.numpy as jnp
from functools import partial


@partial(jax.jit)
def grow(x, n):
    return x + jnp.zeros(n * 2).sum()


def crop(x, k):
    return x[:k]


crop_jit = jax.jit(crop)


sjit = partial(jax.jit, static_argnums=(0,))


@sjit
def blocked(flag, x, m):
    for _ in range(m):
        x = x + 1
    return x


def main():
    return grow(1.0, 3) + crop_jit(jnp.ones(5), 2).sum()
"""


def _run(text: str) -> object:
    namespace: dict[str, object] = {"__name__": "fixed"}
    exec(compile(text, "fixed", "exec"), namespace)
    return namespace["main"]()  # type: ignore[operator]


def test_plain_module_is_fixed_per_function_and_refusals_say_what_to_write() -> None:
    result = fix_source(_PLAIN, "m.py")
    assert sorted(result.fixed) == [("crop", "k"), ("grow", "n")]
    assert (
        "@partial(jax.jit, static_argnames=('n',))" in result.text
    )  # a bare @jax.jit: see test_tracetime
    assert "crop_jit = jax.jit(crop, static_argnames=('k',))" in result.text
    assert len(result.refused) == 1 and "'blocked'" in result.refused[0]
    assert "shared" in result.refused[0] or "share" in result.refused[0], result.refused
    assert (
        "static_argnums=(2,)" in result.refused[0] or "static_argnames=('m',)" in result.refused[0]
    )
    assert result.text.count("\n") == _PLAIN.count("\n")
    assert [d.message.split("'")[1] for d in trace_findings(result.text, "m.py")] == ["m"]
    by_hand = float(1.0 + jnp.zeros(6).sum()) + float(
        jnp.ones(5)[:2].sum()
    )  # the same, in plain JAX
    assert _run(result.text) == pytest.approx(by_hand)


def test_plain_module_before_the_fix_fails_in_jax() -> None:
    with pytest.raises(TypeError):  # jnp.zeros of a traced n: JAX's own verdict
        _run(_PLAIN)
