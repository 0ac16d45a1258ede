"""Names bound to marked defs by a walrus or a loop (issue 42, items 4 and 9), and a first
argument in parentheses.

``(g := f)`` binds ``g`` as ``g = f`` does, so ``jax.jit(g)`` is rewritten (it was left as
written, with check blaming the marker, JR002). A loop or comprehension over a literal of defs
(``[jax.jit(fn) for fn in (f, g)]``) binds ``fn`` to each: rewritten where they all have the same
Static parameters, refused where they differ (JR119), and reported where the iterable is no
literal (JR007); it was silent, even when the def was also jitted by name elsewhere. Each
rewrite runs beside the same program written by hand in plain JAX (results and trace counts),
and the hook's prefilters give what the exhaustive reading gives.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import jaxrewrite
from jaxrewrite import rewrite_source
from jaxrewrite.engine.read.filters import EXHAUSTIVE, FAST

PRELUDE = """\
# jaxrewrite: enable
import functools
import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


def f(x, n: Static[int]):
    TRACES.append(("f", n))
    return x * sum(range(n))


def f3(x, n: Static[int]):
    TRACES.append(("f3", n))
    return x + sum(range(n))


def g(x, n):
    return x + n


def other(y, m: Static[int]):
    return y * m


FAST_F = jax.jit(f)  # jitted by name elsewhere too: the ledger must not take that for the loop's
"""

HAND = (
    PRELUDE.replace("# jaxrewrite: enable\n", "")
    .replace("from jaxrewrite import Static\n", "")
    .replace("n: Static[int]", "n")
    .replace("m: Static[int]", "m")
    .replace("jax.jit(f)  #", "jax.jit(f, static_argnums=(1,))  #")
)
STATIC = "static_argnums=(1,)"

#: (the user's text, the same written by hand): every rewrite the engine makes, and where.
REWRITTEN = {
    "walrus in a call": (
        "print((h := f))\nOUT = jax.jit(h)(jnp.ones(2), 3)",
        f"print((h := f))\nOUT = jax.jit(h, {STATIC})(jnp.ones(2), 3)",
    ),
    "walrus in an assignment": (
        "y = (h := f)\nOUT = jax.jit(h)(jnp.ones(2), 3)",
        f"y = (h := f)\nOUT = jax.jit(h, {STATIC})(jnp.ones(2), 3)",
    ),
    "walrus in an if": (
        "if (h := f):\n    pass\nOUT = jax.vmap(h, in_axes=(0, None))(jnp.ones(2), 3)",
        "if (h := f):\n    pass\nOUT = jax.vmap(h, in_axes=(0, None))(jnp.ones(2), 3)",
    ),
    "walrus in a function": (
        "def build():\n    (h := f)\n    return jax.jit(h)\n\nOUT = build()(jnp.ones(2), 3)",
        f"def build():\n    (h := f)\n    return jax.jit(h, {STATIC})\n\n"
        "OUT = build()(jnp.ones(2), 3)",
    ),
    # The first argument in parentheses: the keywords go after them, not into a tuple.
    "parenthesized argument": (
        "OUT = jax.jit((f))(jnp.ones(2), 3)",
        f"OUT = jax.jit((f), {STATIC})(jnp.ones(2), 3)",
    ),
    "parenthesized walrus, a comment": (
        "OUT = jax.jit(( h := f  # a ) in a comment\n  ),\n)(jnp.ones(2), 3)",
        f"OUT = jax.jit((h := f), {STATIC})(jnp.ones(2), 3)",
    ),
    "comprehension over a tuple": (
        "OUT = [jax.jit(fn)(jnp.ones(2), 3) for fn in (f, f3)]",
        f"OUT = [jax.jit(fn, {STATIC})(jnp.ones(2), 3) for fn in (f, f3)]",
    ),
    "comprehension over a list, in a function": (
        "def build():\n    return [jax.jit(fn) for fn in [f3, f]]\n\n"
        "OUT = [c(jnp.ones(2), 4) for c in build()]",
        f"def build():\n    return [jax.jit(fn, {STATIC}) for fn in [f3, f]]\n\n"
        "OUT = [c(jnp.ones(2), 4) for c in build()]",
    ),
    "loop": (
        "OUT = []\nfor fn in (f, f3):\n    OUT.append(jax.jit(fn)(jnp.ones(2), 3))",
        f"OUT = []\nfor fn in (f, f3):\n    OUT.append(jax.jit(fn, {STATIC})(jnp.ones(2), 3))",
    ),
    "loop in a function, through a walrus": (
        "def build():\n    out = []\n    for fn in (f, f3):\n"
        "        out.append(jax.jit((k := fn)))\n        out.append(jax.jit(k))\n"
        "    return out\n\nOUT = [c(jnp.ones(2), 2) for c in build()]",
        "def build():\n    out = []\n    for fn in (f, f3):\n"
        f"        out.append(jax.jit((k := fn), {STATIC}))\n"
        f"        out.append(jax.jit(k, {STATIC}))\n    return out\n\n"
        "OUT = [c(jnp.ones(2), 2) for c in build()]",
    ),
}


def _about_the_loop(diagnostics: list[Any]) -> list[Any]:
    """The findings, less "no transform applies" on the defs a case leaves unused."""
    return [
        d
        for d in diagnostics
        if not (d.code == "JR002" and ("'other'" in d.message or "'f3'" in d.message))
    ]


def _run(source: str) -> tuple[Any, list[Any]]:
    namespace: dict[str, Any] = {"__name__": "bound_names"}
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", jaxrewrite.NotRewrittenWarning
        )  # exec'd text is never the hook's
        exec(compile(source, "bound_names.py", "exec"), namespace)
    out = namespace["OUT"]
    out = [o.tolist() for o in out] if isinstance(out, list) else out.tolist()
    return out, namespace["TRACES"]


@pytest.mark.parametrize("case", REWRITTEN, ids=list(REWRITTEN))
def test_rewritten_as_by_hand(case: str) -> None:
    user, by_hand = REWRITTEN[case]
    source = PRELUDE + "\n" + user + "\n"
    analysis = jaxrewrite.analyze(source, "m.py", lint=True)
    assert _about_the_loop(analysis.diagnostics) == [], [str(d) for d in analysis.diagnostics]
    rewritten = rewrite_source(source, "m.py")
    assert (
        rewrite_source(source, "m.py", filters=EXHAUSTIVE)
        == rewritten
        == rewrite_source(source, "m.py", filters=FAST)
    )
    # The keywords land where a hand would put them: the values agree with HAND's.
    assert _run(rewritten) == _run(HAND + "\n" + by_hand + "\n")


@pytest.mark.parametrize(
    ("user", "code"),
    [
        ("OUT = [jax.jit(fn) for fn in (f, g)]", "JR119"),  # g has no marker: cannot be one spec
        ("OUT = [jax.jit(fn) for fn in (f, other)]", "JR119"),  # different Static parameters
        (
            "for fn in [f, print]:\n    OUT = jax.jit(fn)",
            "JR007",
        ),  # not all defs: f made into what?
        ("OUT = {k: jax.jit(fn) for k, fn in zip('ab', (f, f3))}", "JR007"),  # not a literal
        ("for i, fn in enumerate([f3, f]):\n    OUT = jax.vmap(fn)", "JR007"),
        ("def build():\n    for i, fn in enumerate([f3, f]):\n        yield jax.jit(fn)", "JR007"),
    ],
)
def test_what_cannot_be_one_spec_is_refused_or_reported(user: str, code: str) -> None:
    source = PRELUDE + "\n" + user + "\n"
    codes = {
        d.code for d in _about_the_loop(jaxrewrite.analyze(source, "m.py", lint=True).diagnostics)
    }
    assert code in codes, codes
    assert "JR002" not in codes  # the marker is not "used by no transform": the loop uses it


@pytest.mark.parametrize(
    "user",
    [
        "for fn in FUNCS:\n    OUT = jax.jit(fn)",  # nothing known of FUNCS: nothing to say
        "OUT = [fn for fn in (f, f3)]",  # no transform
        "OUT = [jax.jit(fn) for fn in (g, print)]",  # no marked def
        "OUT = [(h := fn) for fn in (f, f3)]",  # a walrus reading the comprehension's own name
    ],
)
def test_quiet_where_nothing_is_lost(user: str) -> None:
    source = PRELUDE + "\n" + user + "\n"
    analysis = jaxrewrite.analyze(source, "m.py", lint=True)
    assert not analysis.errors and not [
        d for d in analysis.diagnostics if d.code in ("JR007", "JR119")
    ]


@pytest.mark.parametrize(
    "build",
    [
        lambda n: "x = [" + "for a " * n + "]\n",  # many heads, no ``in``
        lambda n: "for a in (" * n + "f\n",  # brackets never closed, a candidate name in them
        lambda n: "for fn in (f,\n g):\n    pass\n" * n,  # many loops over a candidate
    ],
)
def test_the_loop_search_costs_what_the_text_does(build: Any) -> None:
    """The prefilter's text search for loops over candidate names (``filters._loops``) is
    linear: a first version scanned to the line's end from every ``for`` (37 s for 8,000 on
    one line). Counted in matches read, not timed: four times the text, four times the work."""
    import re

    from jaxrewrite.engine.read import filters

    reads: list[int] = []
    real = filters.IDENTIFIER

    class Counting:
        def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
            reads.append((len(text) if endpos is None else endpos) - pos)
            return real.finditer(text, pos, len(text) if endpos is None else endpos)

        def findall(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
            reads.append((len(text) if endpos is None else endpos) - pos)
            return real.findall(text, pos, len(text) if endpos is None else endpos)

    filters._loops.cache_clear()
    filters.IDENTIFIER = Counting()  # type: ignore[assignment]
    try:
        small, large = build(500), build(2000)
        filters._loops(small)
        read_small = sum(reads)
        reads.clear()
        filters._loops(large)
        assert sum(reads) <= 4 * max(read_small, 1) + 16, (read_small, sum(reads))
        assert re.compile  # the module under test keeps its own compiled patterns
    finally:
        filters.IDENTIFIER = real
        filters._loops.cache_clear()
