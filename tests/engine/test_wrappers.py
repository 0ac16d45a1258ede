"""What lies between a transform and the def (``engine.read.wrappers``): issue 20, items 2, 5 and 6.

A wrapper of the module is read: one that passes ``*args, **kwargs`` straight through (or returns
the function, or a transform of it) keeps the def's positions, any other is refused (JR125), at a
call site, through a name bound to it and under a decorator. A wrapper out of view keeps the
documented assumption. A transform over something not seen through is reported by ``check``
(JR007), never silently left alone. Each case runs through the hook's filters (``rewrite_source``)
and through ``check``; the execution of the accepted ones is pinned by the golden cases
(golden/correctness/wrapper_pass_through.py, rebinding.py, golden/callsites/nested_deep.py).
"""

from __future__ import annotations

import textwrap

import pytest

from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite.engine.findings import analyze

HEAD = """\
# jaxrewrite: enable
import functools
from functools import partial

import jax
from jaxrewrite import Static
from somewhere import imported_wrapper


def body(x, n: Static[int]):
    return x * n

"""

#: Wrappers that keep the arguments: the transform around them gets the def's statics.
FORWARDING = {
    "wraps": (
        "def w(fn):\n    @functools.wraps(fn)\n    def inner(*args, **kwargs):\n"
        "        return fn(*args, **kwargs)\n    return inner\n"
    ),
    "no_wraps": (
        "def w(fn):\n    def inner(*a, **k):\n        print('called')\n"
        "        return fn(*a, **k)\n    return inner\n"
    ),
    "identity": "def w(fn):\n    REGISTRY = [fn]\n    return fn\n",
    "transform_of_it": "def w(fn):\n    return jax.jit(fn)\n",
    "lambda": "w = lambda fn: fn\n",
    "lambda_forwarding": "w = lambda fn: lambda *a, **k: fn(*a, **k)\n",
    "imported": "w = imported_wrapper\n",  # out of view: the documented assumption
    "class": (
        "class w:\n    def __init__(self, fn):\n        self.fn = fn\n"
        "    def __call__(self, *a, **k):\n        return self.fn(*a, **k)\n"
    ),
}

#: Wrappers whose function does not take what the def takes: refused where the def is marked.
SHIFTING = {
    "leading_param": (
        "def w(fn):\n    def inner(scale, *args, **kwargs):\n"
        "        return scale * fn(*args, **kwargs)\n    return inner\n"
    ),
    "keyword_only": (
        "def w(fn):\n    def inner(*args, scale=1, **kwargs):\n"
        "        return scale * fn(*args, **kwargs)\n    return inner\n"
    ),
    "drops_one": (
        "def w(fn):\n    def inner(*args, **kwargs):\n"
        "        return fn(*args[1:], **kwargs)\n    return inner\n"
    ),
    "fixed": "def w(fn):\n    def inner(x, n):\n        return fn(x, n)\n    return inner\n",
    "lambda": "w = lambda fn: lambda s, *a, **k: s * fn(*a, **k)\n",
    "partial_inside": "def w(fn):\n    return partial(fn, 2.0)\n",
    "itself": "def w(fn):\n    return w(fn)\n",
}

#: Where the wrapper stands: a call site, a name bound to the wrapped def, a decorator, a nest.
FORMS = {
    "call": "f = jax.jit(w(body))\n",
    "nested": "f = jax.jit(jax.vmap(w(jax.grad(body))))\n",
    "bound": "g = w(body)\nf = jax.vmap(g)\n",
    "decorator": "@jax.jit\n@w\ndef f(x, n: Static[int]):\n    return x * n\n",
}


def _module(wrapper: str, form: str) -> str:
    return HEAD + wrapper + "\n\n" + FORMS[form]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("wrapper", FORWARDING)
def test_a_forwarding_wrapper_keeps_the_defs_statics(wrapper: str, form: str) -> None:
    out = rewrite_source(_module(FORWARDING[wrapper], form))
    lines = out.splitlines()
    last = (
        lines[-1]
        if form != "decorator"
        else next(line for line in lines if line.startswith("@") and "jit" in line)
    )
    assert "static_argnums=(1,)" in last or "in_axes=(0, None)" in last, out


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("wrapper", SHIFTING)
def test_a_wrapper_in_view_that_shifts_the_arguments_is_refused(wrapper: str, form: str) -> None:
    text = _module(SHIFTING[wrapper], form)
    with pytest.raises(RewriteError) as caught:
        rewrite_source(text)
    assert caught.value.code == "JR125"
    assert caught.value.lineno is not None and text.splitlines()[caught.value.lineno - 1].strip()
    found = analyze(text, lint=True).diagnostics
    refused = "'f'" if form == "decorator" else "'body'"  # applied, though refused: no JR002 for it
    assert any(d.code == "JR125" for d in found)
    assert not any(d.code == "JR002" and refused in d.message for d in found), found


def test_a_shifting_wrapper_over_an_unmarked_def_is_no_concern() -> None:
    text = _module(SHIFTING["leading_param"], "call").replace("n: Static[int]", "n")
    assert rewrite_source(text) == text
    assert analyze(text, lint=True).diagnostics == []


NOT_SEEN = {
    "partial": "f = jax.jit(partial(body, 2.0))\n",
    "nested_partial": "f = jax.jit(jax.vmap(partial(body, 2.0)))\n",
    "bound_partial": "g = partial(body, 2.0)\nf = jax.vmap(g)\n",
    "two_argument_call": "f = jax.jit(combine(body, 2))\n",
}


@pytest.mark.parametrize("form", NOT_SEEN)
def test_a_transform_over_what_is_not_seen_through_is_reported_not_silent(form: str) -> None:
    text = HEAD + "\n" + NOT_SEEN[form]
    assert rewrite_source(text) == text  # nothing is written: which parameters it gets is unknown
    found = [d for d in analyze(text, lint=True).diagnostics if d.code == "JR007"]
    assert found and all(d.line == len(text.splitlines()) for d in found), found
    assert "'body'" in found[0].message


def test_rebinding_and_aliases_are_followed_in_every_scope() -> None:
    text = HEAD + textwrap.dedent(
        """\
        body = jax.jit(body)
        alias = body
        mapped = jax.vmap(alias)


        def later():
            again = jax.vmap(body)
            return again


        for _ in range(2):
            body = jax.checkpoint(body)
        looped = jax.vmap(body)
        """
    )
    out = rewrite_source(text)
    assert "body = jax.jit(body, static_argnums=(1,), static_argnames=('n',))" in out
    assert out.count("in_axes=(0, None)") == 3, out
    assert "body = jax.checkpoint(body, static_argnums=(1,))" in out


def test_an_assignment_not_seen_through_leaves_the_name_no_def_as_before() -> None:
    """The shape of jax's own einsum: a local name bound to the jit of a marked def, then maybe
    to something not seen through. Not refused (JR119) as it was never; the transform of it is
    reported (JR007), and the def's own jit is still completed."""
    text = HEAD + textwrap.dedent(
        """        def run(x, spec=None):
            jitted = jax.jit(body)
            if spec is not None:
                jitted = named_call(jitted, name=spec)
            other(jitted, x)
            return jax.vmap(jitted)(x, 3)
        """
    )
    out = rewrite_source(text)
    assert "jitted = jax.jit(body, static_argnums=(1,), static_argnames=('n',))" in out
    assert "return jax.vmap(jitted)(x, 3)" in out
    found = analyze(text, lint=True).diagnostics
    assert [d.code for d in found] == ["JR007"] and found[0].line == len(text.splitlines())


def _doubling(levels: int, base: str) -> str:
    """``w{i}`` applies ``w{i - 1}`` twice: 2**levels paths from the decorator to ``w0``."""
    chain = "".join(
        f"def w{i}(fn):\n    return w{i - 1}(w{i - 1}(fn))\n\n" for i in range(1, levels + 1)
    )
    return (
        HEAD
        + f"def w0(fn):\n    return {base}\n\n"
        + chain
        + f"@jax.jit\n@w{levels}\ndef f(x, n: Static[int]):\n    return x * n\n"
    )


@pytest.mark.parametrize(
    "base, refused", [("fn", False), ("partial(fn, 2.0)", True)], ids=["forwarding", "shifting"]
)
def test_each_wrapper_is_read_once_however_many_paths_reach_it(
    base: str, refused: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """25 levels, each wrapper applying the one before twice: read per path, that was 2**25
    readings, an import that never ended; each is read once, with the same answer."""
    from jaxrewrite.engine.read import wrappers

    real = wrappers._forwards
    calls = [0]

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls[0] += 1
        assert calls[0] <= 4 * 26, "a wrapper was read again on another path"
        return real(*args, **kwargs)

    monkeypatch.setattr(wrappers, "_forwards", counted)
    text = _doubling(25, base)
    if refused:
        with pytest.raises(RewriteError) as caught:
            rewrite_source(text, "m.py")
        assert caught.value.code == "JR125"  # type: ignore[attr-defined]
    else:
        assert "static_argnums=(1,), static_argnames=('n',)" in rewrite_source(text, "m.py")


@pytest.mark.parametrize(
    "wrappers",
    [
        "def w(fn):\n    return v(fn)\n\ndef v(fn):\n    return w(fn)\n",
        "def w(fn):\n    return v(v(fn))\n\ndef v(fn):\n    return u(w(fn))\n\n"
        "def u(fn):\n    return fn\n",
    ],
    ids=["two in a loop", "a loop beside a forwarding one"],
)
def test_a_loop_of_wrappers_is_still_refused(wrappers: str) -> None:
    """A wrapper made from itself through others cannot be told: JR125, as for ``itself``. The
    memo keeps no answer found under such a cut, so the reading does not depend on the path."""
    with pytest.raises(RewriteError) as caught:
        rewrite_source(HEAD + wrappers + "\n\n" + FORMS["decorator"], "m.py")
    assert caught.value.code == "JR125"  # type: ignore[attr-defined]
