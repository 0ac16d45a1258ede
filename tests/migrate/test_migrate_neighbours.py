"""Specs spelled as the sequences JAX takes, and decorators known to keep the def's signature:
the import hook and migrate read them alike (one reader, ``literals.resolve_keywords``), and
where a binding could make them something else both refuse. Golden cases: golden/migrate/
spec_sequences, signature_keepers; golden/jit/spec_sequences."""

from __future__ import annotations

import pytest
from golden_cases import execute
from migrate_support import check_module, report

from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite.migrate import Reason, migrate_source

#: Each spells the positions (1,): as a literal would, JAX takes it.
SPELLINGS = {
    "range": ("", "range(1, 2)"),
    "range_stop": ("", "range(2)[1:]"),  # not read: a subscript is no call of a builtin
    "tuple_range": ("", "tuple(range(1, 2))"),
    "list_range": ("", "list(range(1, 2))"),
    "tuple_of_list": ("", "tuple([1])"),
    "constant": ("S = (1,)\n", "S"),
    "constant_int": ("S = 1\n", "S"),
    "constant_range": ("S = tuple(range(1, 2))\n", "S"),
    "constant_chain": ("A = (1,)\nS = A\n", "S"),
    "annotated_constant": ("S: tuple = (1,)\n", "S"),
    "range_of_constant": ("ONE = 1\n", "range(ONE, 2)"),
}
READ = [name for name in SPELLINGS if name != "range_stop"]

MODULE = """{header}import jax
from functools import partial
{marker}
TRACES = []
{pre}

@partial(jax.jit, static_argnums={spec})
def f(x, n, m{ann}):
    TRACES.append(("f", n))
    return x * len(range(n)) + m


def g(x, n):
    TRACES.append(("g", n))
    return x * len(range(n))


g_jit = jax.jit(g, static_argnums={spec})


def _check():
    return [float(f(1.0, 2, 3)), float(f(2.0, 2, 3)), float(g_jit(1.0, 3))], TRACES
"""


def module(name: str, marked: bool) -> str:
    pre, spec = SPELLINGS[name]
    header = "# jaxrewrite: enable\n" if marked else ""
    marker = "from jaxrewrite import Static" if marked else ""
    ann = ": Static" if marked else ""
    return MODULE.format(header=header, marker=marker, pre=pre, spec=spec, ann=ann)


@pytest.mark.parametrize("name", READ)
def test_the_hook_completes_a_sequence_spec_as_its_literal(name: str) -> None:
    out = rewrite_source(module(name, marked=True), "m.py")
    assert "@partial(jax.jit, static_argnums=(1, 2), static_argnames=('n', 'm'))" in out
    hand = module(name, marked=False).replace(SPELLINGS[name][1] + ")\ndef f", "(1, 2))\ndef f")
    got = execute(out, "m.py", "seq_hook")._check()
    assert got == execute(hand, "m.py", "seq_hand", rewritten=False)._check()
    assert got[1] == [("f", 2), ("g", 3)]  # one trace each: the second call of f is a cache hit


@pytest.mark.parametrize("name", READ)
def test_migrate_takes_a_sequence_spec_and_runs_the_same(name: str) -> None:
    source = module(name, marked=False)
    result, problems = check_module(source, "m.py")
    assert not problems and not result.refused, (problems, report(result))
    assert [m.function for m in result.migrated] == ["f", "g"]
    before = execute(source, "m.py", "seq_before", rewritten=False)._check()
    assert execute(rewrite_source(result.text, "m.py"), "m.py", "seq_after")._check() == before


#: Where a binding could make the spec something other than what the text shows.
NOT_CONSTANT = {
    "range_rebound": ("def range(*a):\n    return (2,)\n", "range(1, 2)"),
    "range_star": ("from os.path import *\n", "range(1, 2)"),
    "range_huge": ("", "range(5000)"),
    "range_past_ssize_t": ("", "range(100000000000000000000)"),
    "range_step_zero": ("", "range(1, 2, 0)"),
    "range_negative_huge": ("", "range(0, -100000000000000000000, -1)"),
    "range_keywords": ("", "range(1, 2, step=1)"),
    "tuple_of_string": ("", "tuple('ab')"),
    "list_constant": ("S = [1]\n", "S"),
    "bound_twice": ("S = (1,)\nS = (2,)\n", "S"),
    "augmented": ("S = (1,)\nS += ()\n", "S"),
    "global_elsewhere": ("S = (1,)\n\n\ndef reset():\n    global S\n    S = (2,)\n", "S"),
    "star_import": ("S = (1,)\nfrom os.path import *\n", "S"),
    "a_call": ("def S():\n    return (1,)\n", "S()"),
    "attribute": ("import os\n", "os.sep"),
}


@pytest.mark.parametrize("name", sorted(NOT_CONSTANT))
def test_a_spec_that_may_be_something_else_is_refused_by_both(name: str) -> None:
    SPELLINGS[name] = NOT_CONSTANT[name]
    try:
        with pytest.raises(RewriteError, match="JR111"):
            rewrite_source(module(name, marked=True), "m.py")
        result = migrate_source(module(name, marked=False), "m.py")
    finally:
        del SPELLINGS[name]
    assert not result.migrated
    assert {r.reason for r in result.refused} == {Reason.NON_LITERAL}


@pytest.mark.parametrize("spec", ["range(2)", "AXES"])
def test_an_axes_spec_is_read_as_written(spec: str) -> None:
    """vmap reads ``in_axes`` as a tree, where a range is a leaf JAX rejects, not a tuple: only
    literals are merged there (JR114), as before."""
    source = (
        "# jaxrewrite: enable\nimport jax\nfrom jaxrewrite import Static\nAXES = (0, None)\n\n\n"
        f"def f(x, n: Static[int]):\n    return x\n\n\ng = jax.vmap(f, in_axes={spec})\n"
    )
    with pytest.raises(RewriteError, match="JR114"):
        rewrite_source(source, "m.py")


def test_a_spec_named_in_a_function_is_read_only_where_the_module_binds_it() -> None:
    """A parameter named like the constant shadows it: the spec inside is not the constant."""
    source = (
        "import jax\nS = (1,)\n\n\ndef g(x, n):\n    return x\n\n\n"
        "def make(S):\n    return jax.jit(g, static_argnums=S)\n\n\n"
        "def make_const():\n    return jax.jit(g, static_argnums=S)\n"
    )
    result = migrate_source(source, "m.py")
    assert [(r.reason, r.function) for r in result.refused] == [(Reason.NON_LITERAL, "g")]
    assert "static_argnums=S is not a literal" in result.refused[0].message


# -- decorators between the transform and the def ------------------------------------------------

DECORATORS = """import contextlib
import functools
from functools import partial

import jax
from elsewhere import imported


def explicit(fn):
    @functools.wraps(fn)
    def inner(x, n):
        return fn(x, n)

    return inner


def other_wraps(fn):
    @functools.wraps(print)
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)

    return inner


class Called(contextlib.ContextDecorator):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        return lambda *args: fn(*args)


@partial(jax.jit, static_argnames="n")
@explicit
def a(x, n):
    return x


@partial(jax.jit, static_argnames="n")
@other_wraps
def b(x, n):
    return x


@partial(jax.jit, static_argnames="n")
@Called()
def c(x, n):
    return x


@partial(jax.jit, static_argnames="n")
@imported
def d(x, n):
    return x


def e(x, n):
    return x * len(range(n))


e_jit = jax.jit(jax.named_call(e), static_argnames="n")


def h(x, n):
    return x * len(range(n))


h_jit = jax.jit(jax.default_matmul_precision("float32")(h), static_argnames="n")
"""


def test_only_decorators_known_to_keep_the_signature_are_looked_through() -> None:
    result, problems = check_module(DECORATORS, "d.py")
    assert not problems
    refused = {r.function: r.reason for r in result.refused}
    assert refused == {
        # the hook cannot see positions through a wrapper that names its own parameters (JR125)
        "a": Reason.ROUND_TRIP,
        "b": Reason.HIDDEN_SIGNATURE,  # wraps another function: JAX sees print's signature
        "c": Reason.HIDDEN_SIGNATURE,  # its own __call__ makes the function, not ContextDecorator's
        "d": Reason.HIDDEN_SIGNATURE,  # not in view
    }
    assert sorted(m.function for m in result.migrated) == ["e", "h"]


def test_call_site_keepers_run_the_same_after_migration() -> None:
    source = "import jax\n\n\ndef e(" + DECORATORS.split("\n\n\ndef e(")[1]
    calls = "[float(e_jit(1.0, 2)), float(h_jit(1.0, n=3)), float(e_jit(2.0, 2))]"
    source += f"\n\ndef _check():\n    return {calls}\n"
    result = migrate_source(source, "d.py")
    assert sorted(m.function for m in result.migrated) == ["e", "h"]
    before = execute(source, "d.py", "keep_before", rewritten=False)._check()
    assert execute(rewrite_source(result.text, "d.py"), "d.py", "keep_after")._check() == before
