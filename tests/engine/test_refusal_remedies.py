"""Every refusal ends in what to write instead (issue 45, item 5), and what it says to write works.

JR101 (a marker on ``*args``/``**kwargs``) spells the one parameter to write, with the user's
own marker and type; JR112 (a Static argument also donated) names the donate keyword to drop the
parameter from. Each remedy is then applied and run against the same program written by hand in
plain JAX (results and trace counts).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import pytest

from jaxrewrite import notrewritten, rewrite_source
from jaxrewrite.engine.build import build_analysis
from jaxrewrite.migrate import migrate_source

REPO = Path(__file__).resolve().parents[2]
HEAD = (
    "# jaxrewrite: enable\nfrom functools import partial\nimport jax\nimport jaxrewrite\n"
    "from jaxrewrite import NoDiff, Static\n"
)

#: The imperative a remedy starts with, after the diagnosis (``; write ...``, ``: drop ...``).
REMEDY = re.compile(
    r"[;:.] "
    r"(?:write|drop|make|put|pass|give|take|name|mark|bind|rename|define|list|leave|move|apply|hold|use|spell|correct|migrate|check)\b"
)


def _run(text: str) -> dict[str, Any]:
    """Execute the rewrite as the hook does (its file marked as rewritten: no
    NotRewrittenWarning)."""
    notrewritten.REWRITTEN.add("remedy.py")
    namespace: dict[str, Any] = {"__file__": "remedy.py"}
    exec(compile(rewrite_source(text, "remedy.py"), "remedy.py", "exec"), namespace)
    return namespace


def _errors(body: str) -> list[tuple[str, str]]:
    return [(e.code, e.message) for e in build_analysis(HEAD + body, "m.py").errors]


@pytest.mark.parametrize(
    ("param", "remedy"),
    [
        (
            "*sizes: Static[int]",
            "write one parameter instead, 'sizes: Static[tuple[int, ...]]', and pass the "
            "values as one tuple",
        ),
        (
            "*sizes: Static",
            "write one parameter instead, 'sizes: Static[tuple]', and pass the values as one tuple",
        ),
        (
            "*sizes: 'Static[int]'",
            "write one parameter instead, 'sizes: Static[tuple]', and pass the values as one tuple",
        ),
        (
            "*sizes: jaxrewrite.Static[tuple[int, int]]",
            "write one parameter instead, 'sizes: jaxrewrite.Static[tuple[tuple[int, "
            "int], ...]]', and pass the values as one tuple",
        ),
        (
            "**options: Static[str]",
            "write each keyword as a keyword-only parameter instead ('*, name: Static[str]')",
        ),
        (
            "**options: Static",
            "write each keyword as a keyword-only parameter instead ('*, name: Static')",
        ),
    ],
    ids=["args", "args-bare", "args-string", "args-qualified", "kwargs", "kwargs-bare"],
)
@pytest.mark.parametrize("form", ["decorator", "call"])
def test_jr101_says_which_one_parameter_to_write(param: str, remedy: str, form: str) -> None:
    body = f"def f(x, {param}):\n    return x\n"
    body = f"@jax.jit\n{body}" if form == "decorator" else f"{body}g = jax.jit(f)\n"
    ((code, message),) = _errors(body)
    assert code == "JR101" and message.endswith(f"as static; {remedy}")


def test_jr101_nodiff_on_args_says_the_same_with_nodiff() -> None:
    ((code, message),) = _errors("@jax.custom_vjp\ndef f(x, *w: NoDiff[float]):\n    return x\n")
    assert code == "JR101" and message.endswith(
        "'w: NoDiff[tuple[float, ...]]', and pass the values as one tuple"
    )


def test_jr101s_remedy_rewrites_and_runs_as_jit_by_hand() -> None:
    ours = HEAD + (
        "TRACES = []\n@jax.jit\ndef f(x, sizes: Static[tuple[int, ...]]):\n"
        "    TRACES.append(sizes)\n    return x * sum(sizes)\n"
    )
    namespace = _run(ours)
    traces: list[tuple[int, ...]] = []

    def plain(x: jax.Array, sizes: tuple[int, ...]) -> jax.Array:
        traces.append(sizes)
        return x * sum(sizes)

    hand = jax.jit(plain, static_argnums=1)
    x = jnp.arange(3.0)
    for sizes in [(1, 2), (1, 2), (3,)]:
        assert jnp.array_equal(namespace["f"](x, sizes), hand(x, sizes))
    assert namespace["TRACES"] == traces == [(1, 2), (3,)]


@pytest.mark.parametrize(
    ("spec", "remedy"),
    [
        ("donate_argnums=(1,)", "drop 1 from donate_argnums, or drop the Static marker"),
        ("donate_argnums=1", "drop 1 from donate_argnums, or drop the Static marker"),
        ("donate_argnames='n'", "drop 'n' from donate_argnames, or drop the Static marker"),
        (
            "donate_argnums=(0, 1), donate_argnames=('n',)",
            "drop 1 from donate_argnums and 'n' from donate_argnames, or drop the Static marker",
        ),
    ],
    ids=["nums", "num", "names", "both"],
)
@pytest.mark.parametrize("form", ["partial", "call"])
def test_jr112_says_which_donate_keyword_to_drop_it_from(spec: str, remedy: str, form: str) -> None:
    body = "def f(x, n: Static[int]):\n    return x\n"
    body = (
        f"@partial(jax.jit, {spec})\n{body}"
        if form == "partial"
        else f"{body}g = jax.jit(f, {spec})\n"
    )
    ((code, message),) = _errors(body)
    assert code == "JR112" and message.endswith(f"a static argument cannot be donated: {remedy}")


def test_jr112s_remedy_rewrites_and_runs_as_jit_by_hand() -> None:
    ours = (
        HEAD
        + "@partial(jax.jit, donate_argnums=(0,))\ndef f(x, n: Static[int]):\n    return x * n\n"
    )
    namespace = _run(ours)
    hand = jax.jit(lambda x, n: x * n, static_argnums=1, donate_argnums=(0,))
    assert jnp.array_equal(namespace["f"](jnp.arange(3.0), 2), hand(jnp.arange(3.0), 2))


def test_every_jr1_refusal_pinned_by_a_golden_file_ends_in_a_remedy() -> None:
    pinned = [*REPO.glob("golden/*/*.err"), *REPO.glob("golden/check/*.findings")]
    messages = {m for path in pinned for m in re.findall(r"JR1\d\d .*", path.read_text())}
    assert len({m[:5] for m in messages}) >= 20  # most JR1 codes have a golden case
    lacking = sorted(m for m in messages if not REMEDY.search(m))
    assert lacking == []


def test_migrate_refuses_the_donated_static_with_the_same_remedy() -> None:
    text = (
        "from functools import partial\nimport jax\n\n\n"
        "@partial(jax.jit, static_argnums=1, donate_argnums=1)\ndef f(x, n):\n    return x\n"
    )
    (refusal,) = migrate_source(text, "m.py").refused
    assert refusal.reason.rule.code == "JR112"  # the check of JR112 (JR210 before the merge)
    assert refusal.message.endswith(
        "also donated to jit; drop 1 from donate_argnums, then migrate again"
    )


def test_every_migrate_refusal_pinned_by_a_golden_report_ends_in_a_remedy() -> None:
    reports = list(REPO.glob("golden/migrate/*.report"))
    refusals = {m for path in reports for m in re.findall(r"refused.*", path.read_text())}
    assert len({m.rsplit("[", 1)[-1] for m in refusals}) >= 15  # most reasons have a golden case
    lacking = sorted(m for m in refusals if not REMEDY.search(m))
    assert lacking == []
