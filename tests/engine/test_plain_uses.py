"""A use of a marked def that is no transform needs nothing, and never refuses a valid module.

jax's own ``attention_mgpu.py`` binds a name to one of two jitted defs (``if ...: impl = a`` /
``else: impl = b``) and passes ``functools.partial(impl, config=config)`` to a profiler: no
transform of the module, so nothing to rewrite, yet the module was refused (JR119) because the
argument of every call was read as if the callee were a transform. Here the class: names bound
several ways (branches, try/except, a loop) or through a wrapper that shifts arguments, passed to
partial, to a plain function, into containers, returned and compared. Each module imports, and
runs as the same program written by hand in plain JAX (results and trace counts). Where the
callee is or may be a transform, the refusal stays (the last tests).
"""

from __future__ import annotations

import textwrap
import warnings
from typing import Any

import pytest

import jaxrewrite
from jaxrewrite import rewrite_source

PRELUDE = """\
# jaxrewrite: enable
import functools
import jax
import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []


def measure(fn):
    return fn


def shift(fn):
    def inner(y, *args, **kwargs):
        return fn(*args, **kwargs)
    return inner


@jax.jit
def a(x, n: Static[int]):
    TRACES.append(("a", n))
    return x * sum(range(n))


@jax.jit
def b(x, m: Static[int], k: Static[int] = 1):
    TRACES.append(("b", m, k))
    return x + m * k
"""

#: The same defs written by hand: what the rewrite must mean.
HAND_PRELUDE = PRELUDE.replace("# jaxrewrite: enable\n", "").replace(
    "from jaxrewrite import Static\n", ""
)
HAND_PRELUDE = HAND_PRELUDE.replace(
    "@jax.jit\ndef a(x, n: Static[int]):",
    "@functools.partial(jax.jit, static_argnums=(1,))\ndef a(x, n):",
).replace(
    "@jax.jit\ndef b(x, m: Static[int], k: Static[int] = 1):",
    "@functools.partial(jax.jit, static_argnums=(1, 2))\ndef b(x, m, k=1):",
)

#: How the name comes to stand for several defs with different statics.
BINDINGS = {
    "if/else": "if FLAG:\n    impl = a\nelse:\n    impl = b",
    "conditional expression": "impl = a if FLAG else b",
    "try/except": "try:\n    assert FLAG\n    impl = a\nexcept AssertionError:\n    impl = b",
    "loop": "for impl in (b, a) if FLAG else (a, b):\n    pass",
    "walrus in a branch": "if FLAG:\n    (impl := a)\nelse:\n    (impl := b)",
}

#: Uses that are no transform of the module. ``N`` is 3 for ``a`` (n) and for ``b`` (m).
USES = {
    "partial to a plain function": (
        "OUT = measure(functools.partial(impl, **({'n': 3} if FLAG else {'m': 3})))(jnp.ones(2))"
    ),
    "plain function": "OUT = measure(impl)(jnp.ones(2), 3)",
    "list": "OUT = [impl, a][0](jnp.ones(2), 3)",
    "dict": "OUT = {'i': impl}['i'](jnp.ones(2), 3)",
    "tuple and append": "fs = []\nfs.append(impl)\nOUT = (fs[0],)[0](jnp.ones(2), 3)",
    "returned": "def get():\n    return impl\n\nOUT = get()(jnp.ones(2), 3)",
    "compared": "OUT = (impl is a, impl == b, impl in {a}, callable(impl))",
    "shifting wrapper to a plain function": "OUT = measure(shift(impl))(None, jnp.ones(2), 3)",
}


def _run(source: str, flag: bool) -> tuple[Any, list[Any]]:
    namespace: dict[str, Any] = {"FLAG": flag, "__name__": "plain_uses"}
    with warnings.catch_warnings():
        # Text run by exec is never the hook's: the warning that says so is expected here.
        warnings.simplefilter("ignore", jaxrewrite.NotRewrittenWarning)
        exec(compile(source, "plain_uses.py", "exec"), namespace)
    out = namespace["OUT"]
    if not isinstance(out, tuple):
        out = out.tolist()
    return out, namespace["TRACES"]


@pytest.mark.parametrize("use", USES, ids=list(USES))
@pytest.mark.parametrize("binding", BINDINGS, ids=list(BINDINGS))
def test_a_name_bound_several_ways_used_by_no_transform_imports_and_runs_as_by_hand(
    binding: str, use: str
) -> None:
    body = BINDINGS[binding] + "\n\n" + USES[use] + "\n"
    source = PRELUDE + "\n" + body
    analysis = jaxrewrite.analyze(source, "plain_uses.py")
    assert not analysis.errors, [str(d) for d in analysis.errors]
    rewritten = rewrite_source(source, "plain_uses.py")
    # The two decorators are the only edits: the uses below them are left as written.
    assert (
        rewritten.splitlines()[len(PRELUDE.splitlines()) :]
        == source.splitlines()[len(PRELUDE.splitlines()) :]
    )
    hand = HAND_PRELUDE + "\n" + body
    for flag in (True, False):
        assert _run(rewritten, flag) == _run(hand, flag), (binding, use, flag)


def test_jax_attention_mgpu_shape_imports() -> None:
    """The reported module's shape itself: a profiler measuring a partial of whichever jitted
    def was chosen (``attention_mgpu.py``: ``profiler.measure(functools.partial(attention_impl,
    config=config))(q, k, v)``)."""
    source = PRELUDE + textwrap.dedent(
        """
        class profiler:
            @staticmethod
            def measure(fn):
                return lambda *args: (fn(*args), 0.0)


        def main(flag):
            if flag:
                attention_impl = a
            else:
                attention_impl = b
            out, runtime_ms = profiler.measure(functools.partial(attention_impl, **({'n': 3} if flag else {'m': 3})))(jnp.ones(2))
            return out

        OUT = main(FLAG)
        """  # noqa: E501
    )
    assert rewrite_source(source, "attention_like.py") != source  # the decorators, no more
    hand = HAND_PRELUDE + source[len(PRELUDE) :]
    for flag in (True, False):
        assert _run(rewrite_source(source, "attention_like.py"), flag) == _run(hand, flag)


@pytest.mark.parametrize(
    ("use", "code"),
    [
        ("jax.jit(impl)", "JR119"),  # a transform: which statics to write cannot be told
        ("jax.vmap(measure(impl))", "JR119"),  # through a one-argument wrapper, still a transform's
        ("jax.jit(shift(a))", "JR125"),  # a wrapper in view that shifts the arguments
        ("jit(impl)", "JR104"),  # ``jit`` itself bound two ways: it may be jax's
    ],
)
def test_a_transform_of_such_a_name_is_still_refused(use: str, code: str) -> None:
    jit = "if FLAG:\n    from jax import jit\nelse:\n    jit = print\n"
    source = PRELUDE + "\n" + jit + BINDINGS["if/else"] + "\n\nOUT = " + use + "\n"
    codes = [d.code for d in jaxrewrite.analyze(source, "m.py").errors]
    assert codes[:1] == [code], codes
