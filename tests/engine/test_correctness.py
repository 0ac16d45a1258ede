"""Correctness contracts the golden cases cannot state on their own.

The transform table's positional parameters are checked against the installed JAX (a positional
argument is completed as the keyword it binds, so a wrong name would write a wrong spec), and one
module with several refusals reports each of them, while the hook raises the first by position.
The golden cases under ``golden/correctness`` hold the rewrites themselves (issue 13).
"""

from __future__ import annotations

import inspect
import textwrap
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import jaxrewrite
from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite.engine.findings.checks.registry import CODES
from jaxrewrite.engine.rulebook.table import CLASS_TRANSFORMS, TRANSFORMS


def _jax_function(name: str) -> Callable[..., Any]:
    import jax
    import jax.tree_util

    if name == "pjit":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from jax.experimental.pjit import pjit

        return pjit
    if name == "register_dataclass":
        return jax.tree_util.register_dataclass
    return getattr(jax, name)


def _positional_after_first(func: Callable[..., Any]) -> list[str]:
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = [p.name for p in inspect.signature(func).parameters.values() if p.kind in kinds]
    return params[1:]


ROWS = [(name, row.positional) for name, row in {**TRANSFORMS, **CLASS_TRANSFORMS}.items()]


@pytest.mark.parametrize(("name", "positional"), ROWS, ids=[name for name, _ in ROWS])
def test_positional_parameters_match_installed_jax(name: str, positional: tuple[str, ...]) -> None:
    """Every parameter the installed JAX takes by position after the function (or class) is in the
    row, in order; the row may go on (older JAX took more by position), never disagree."""
    real = _positional_after_first(_jax_function(name))
    assert list(positional[: len(real)]) == real


SEVERAL = """\
# jaxrewrite: enable
import dataclasses
import sys
from functools import partial

import jax
from jaxrewrite import Static


@jax.jit
def spread(x, *rest: Static[int]):
    return x


@partial(jax.jit, donate_argnums=(1,))
def donated(x, n: Static[int]):
    return x


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Params:
    weight: jax.Array
    mode: Static[str]
    steps: int = dataclasses.field(default=1, metadata=dict(static=True))


if sys.platform == "win32":
    def body(x, n: Static[int]):
        return x
else:
    def body(x, n):
        return x

compiled = jax.jit(body)
mapped = jax.pmap(donated, "i", 0)


@jax.jit
def fine(x, n: Static[int]):
    return x
"""

EXPECTED = [("JR101", 11), ("JR112", 16), ("JR118", 25), ("JR119", 35), ("JR120", 36)]


def test_analyze_collects_every_error_with_its_code_and_line() -> None:
    analysis = jaxrewrite.analyze(SEVERAL, "several.py")
    found = [(d.code, d.line) for d in analysis.errors]
    assert found == EXPECTED
    for d in analysis.errors:
        assert (
            d.code in CODES
            and d.filename == "several.py"
            and str(d).startswith(f"several.py:{d.line}:")
        )
    # The uses that are fine are still analyzed: the last def gets its keywords.
    assert any(use.target.name == "fine" and use.needs_edit for use in analysis.uses)


def test_rewrite_source_raises_the_first_error_by_position() -> None:
    with pytest.raises(RewriteError) as caught:
        rewrite_source(SEVERAL, "several.py")
    assert (caught.value.code, caught.value.lineno) == EXPECTED[0]
    # Without the first, the next one comes first.
    fixed = SEVERAL.replace("*rest: Static[int]", "*rest")
    with pytest.raises(RewriteError) as caught:
        rewrite_source(fixed, "several.py")
    assert (caught.value.code, caught.value.lineno) == EXPECTED[1]


def test_walrus_that_may_not_run_leaves_the_name_ambiguous() -> None:
    """``flag and (f := g)`` binds f only sometimes: a later jax.jit(f) must not pick either."""
    source = textwrap.dedent(
        """\
        # jaxrewrite: enable
        import jax
        from jaxrewrite import Static


        def f(x, n: Static[int]):
            return x


        def g(x, n):
            return x


        {binding}
        compiled = jax.jit(f)
        """
    )
    maybe = (
        "flag = FLAG and (f := g)",
        "flag = g if FLAG else (f := g)",
        "flag = [(f := g) for _ in ()]",
        "assert (f := g)",  # python -O drops it
    )
    for binding in maybe:
        codes = [d.code for d in jaxrewrite.analyze(source.format(binding=binding), "m.py").errors]
        assert codes == ["JR119"], binding
    for binding in ("flag = (f := g)", "flag = (f := g) and FLAG", "if (f := g):\n    pass"):
        analysis = jaxrewrite.analyze(source.format(binding=binding), "m.py")
        assert not analysis.errors and not any(use.needs_edit for use in analysis.uses), binding
    analysis = jaxrewrite.analyze(source.format(binding="flag = lambda: (f := g)"), "m.py")
    assert not analysis.errors and [use.needs_edit for use in analysis.uses] == [True]


BLOCK = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static


def f(x, n: Static[int]):
    return x


{block}
"""


@pytest.mark.parametrize(
    ("block", "codes"),
    [
        ("for f in FUNCS:\n    c = jax.jit(f)", []),  # the loop target
        ("with CM as f:\n    c = jax.jit(f)", []),
        ("try:\n    pass\nexcept E as f:\n    c = jax.jit(f)", []),
        ("match V:\n    case [f]:\n        c = jax.jit(f)", []),
        (
            "for f in FUNCS:\n    if C:\n        del f\n    c = jax.jit(f)",
            ["JR119"],
        ),  # rebound in the block
        (
            "for f in FUNCS:\n    pass\nc = jax.jit(f)",
            ["JR119"],
        ),  # after the loop: the def if it never ran
    ],
)
def test_a_block_head_binds_its_name_for_the_block(block: str, codes: list[str]) -> None:
    analysis = jaxrewrite.analyze(BLOCK.format(block=block), "m.py")
    assert [d.code for d in analysis.errors] == codes
    assert not any(use.needs_edit for use in analysis.uses)


# -- the generated text calls the builtin __import__ -------------------------------------------

_REBINDS_IMPORT = {
    "module def": "def __import__(*a, **k):\n    return None\n\n\n{target}",
    "module assignment": "__import__ = None\n\n\n{target}",
    "enclosing function": "def outer():\n    __import__ = None\n\n{indented}\n    return f",
}
_TARGETS = {
    "bare jit": "@jax.jit\ndef f(x, n: Static[int]):\n    return x * n\n",
    "per-leaf jit": "@jax.jit\ndef f(c: Cfg):\n    return c\n",
    "bare registration": (
        "@jax.tree_util.register_dataclass\n@dataclasses.dataclass\nclass P:\n"
        "    w: jax.Array\n    n: Static[int]\n"
    ),
}
_PRELUDE = (
    "# jaxrewrite: enable\nimport dataclasses\nfrom typing import TypedDict\n\nimport jax\n"
    "from jaxrewrite import Static\n\n\nclass Cfg(TypedDict):\n    x: jax.Array\n"
    "    n: Static[int]\n\n\n"
)


@pytest.mark.parametrize("target", sorted(_TARGETS))
@pytest.mark.parametrize("where", sorted(_REBINDS_IMPORT))
def test_a_module_that_rebinds_import_is_refused_where_the_rewrite_would_call_it(
    where: str, target: str
) -> None:
    body = _TARGETS[target]
    text = _PRELUDE + _REBINDS_IMPORT[where].format(
        target=body, indented=textwrap.indent(body, "    ")
    )
    with pytest.raises(RewriteError) as caught:
        rewrite_source(text, "m.py")
    assert caught.value.code == "JR122"
    assert text.splitlines()[caught.value.lineno - 1].lstrip().startswith("@jax.")


def test_a_rebound_import_elsewhere_does_not_matter() -> None:
    # A function's own local __import__ is not visible at module-level decorators.
    text = (
        _PRELUDE
        + "def helper():\n    __import__ = None\n    return __import__\n\n\n"
        + _TARGETS["bare jit"]
    )
    assert "__import__('functools').partial(jax.jit" in rewrite_source(text, "m.py")
