"""The pre-filters against the exhaustive reading on generated modules
(tests/engine/test_prefilters.py holds the golden inputs and the hand-written layouts).

A filter that leaves a function body unread where the exhaustive reading rewrites something in
it drops statics silently: an alias learned in such a body (``g = f``, then ``jax.jit(g)``) was
one, and the hand-written layouts lacked it. Hypothesis draws bodies and module-level runs of
the statements that bind, alias, transform or merely mention the marked def, and each filter
off (and all of them) must give the same text or the same error. Apart from
test_prefilters.py because the Python 3.14 leg (.ci/py314) runs that file without hypothesis.
"""

from __future__ import annotations

from depth import examples
from golden_cases import outcome
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaxrewrite.engine.read.filters import EXHAUSTIVE, Filters

_HEAD = (
    "# jaxrewrite: enable\nimport jax\nimport functools\nfrom functools import partial\n"
    "from jaxrewrite import Static\n\n"
)
_DEFS = (
    "def f(x, n: Static[int]):\n    return x\n",
    "@jax.jit\ndef f(x, n: Static[int]):\n    return x\n",
    "def f(x, *, n: Static[int] = 2):\n    return x\n",
)
#: Statements that bind, alias, transform or merely mention names (``{a}`` bound, ``{b}`` read),
#: the ways a name can come to stand for the marked def; placed in function bodies (which the
#: filters may leave unread) or at module level. Indented for a body; dedented for the module.
_STATEMENTS = (
    "{a} = {b}",
    "{a}: object = {b}",
    "{a} = \\\n    {b}",
    "{a} = jax.jit({b})",
    "{a} = jax.vmap({b})",
    "{a} = partial(jax.jit, donate_argnums=0)({b})",
    "{a} = functools.partial({b}, 1)",
    "{a} = {b} if True else {b}",
    "out = jax.jit({b})",
    "out = [jax.jit({b}) for _ in range(2)]",
    "out = (lambda: jax.jit({b}))()",
    "out = jax.pmap(\n        {b},\n    )",
    "out = ({a} := {b})",
    "for {a} in ({b},):\n        out = jax.jit({a})",
    "try:\n        {a} = {b}\n    except Exception:\n        {a} = f",
    "if True:\n        {a} = {b}\n    out = jax.jit({a})",
    "print({b})",
    "del {a}",
    "f = {b}",
)
_BOUND = st.sampled_from("ghk")  # the marked def itself is rebound by its own statement only
_READ = st.sampled_from("fgh")
_BODY = st.lists(st.tuples(st.sampled_from(_STATEMENTS), _BOUND, _READ), min_size=1, max_size=5)


@st.composite
def _modules(draw: st.DrawFn) -> str:
    parts = [_HEAD, draw(st.sampled_from(_DEFS))]
    for index, (in_a_def, body) in enumerate(
        draw(st.lists(st.tuples(st.booleans(), _BODY), min_size=1, max_size=4))
    ):
        lines = [template.format(a=a, b=b) for template, a, b in body]
        if in_a_def:
            parts.append(
                f"\ndef use{index}():\n"
                + "\n".join("    " + line for line in lines)
                + "\n    return out\n"
            )
        else:
            parts.append("\n" + "\n".join(line.replace("\n    ", "\n") for line in lines) + "\n")
    return "\n".join(parts)


@settings(
    max_examples=examples(300),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(_modules())
def test_generated_modules_read_alike_with_and_without_filters(source: str) -> None:
    """Aliases, transforms and rebindings in bodies and at module level, in any mix: a filter
    that leaves something unread which the exhaustive reading rewrites is a silent no-op (an
    alias learned in an unread body was one). Each filter off alone, and all of them."""
    filtered = outcome(source, "generated.py")
    assert outcome(source, "generated.py", EXHAUSTIVE) == filtered
    for each in ("marker_names", "first_arguments"):
        assert outcome(source, "generated.py", Filters(**{each: False})) == filtered, each
