"""Property tests: random signatures, wrapper stacks, decorator spellings and call styles.

Each example renders a whole module, rewrites it and checks two things:

* the text: the rewrite is a fixed point, keeps every line where it was (only the
  transform's decorator lines change), writes exactly the expected ``static_argnums`` /
  ``static_argnames``, and leaves a module alone (the very same text) when nothing in it is
  ``Static`` or the pragma does not count;
* the meaning, by running the rewritten module: each parameter's body records whether it
  saw a ``jax.core.Tracer`` (``jax.core.Tracer`` exists on the floor JAX 0.4.30 and on the
  newest), statics drive ``range(...)``, the same statics with new dynamic values do not
  retrace and a changed static does.

A parameter is expected static when it is annotated ``Static`` or the user's own
``static_argnums`` / ``static_argnames`` name it: once the rewrite writes both lists, a
parameter is static however it is passed. Where the user wrote both lists, JAX reads them
apart (a position static only by position, a name only by name), and so does the rewrite: only
the annotated parameters join both. A module without any ``Static`` is not touched,
so there JAX's own rules apply (it infers the missing list from the signature, which a
wrapper without ``functools.wraps`` hides); the model spells out both.

The model (``Case``, its strategies, rendering and the execution check) is in
tests/engine/properties_support.py. Call sites (``jax.jit(fn)`` on a def of the module) have
properties of their own, over the same model: tests/engine/test_properties_sites.py.

Examples are derandomized and capped so the file runs in well under a minute on 2 cores.
"""

from __future__ import annotations

from depth import examples
from golden_cases import execute
from hypothesis import HealthCheck, example, given, settings
from properties_support import (
    FILENAME,
    Case,
    K,
    N,
    X,
    _case,
    _exercise,
    _static_keywords,
    cases,
    render,
)

from jaxrewrite import rewrite_source

#: Fixed seed, no example database: every run tests the same examples (half of each budget by
#: default, all of it under JAXREWRITE_FULL=1, as .ci/run sets: tests/depth.py).
TEXT = settings(
    max_examples=examples(400),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
RUN = settings(
    max_examples=examples(60),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

README_WRAPPER = _case((X, N), {"x": "pos", "n": "kw"}, wrappers=("passthrough",))
#: The user's lists already say everything: the rewrite changes no line.
ALREADY_COMPLETE = _case((K,), {"k": "kw"}, spelling="both", user_names=("k",), user_nums=())


@TEXT
@given(cases())
@example(README_WRAPPER)
@example(ALREADY_COMPLETE)
def test_rewrite_is_line_preserving_fixed_point_with_exact_lists(case: Case) -> None:
    src = render(case)
    out = rewrite_source(src.text, FILENAME)
    assert rewrite_source(out, FILENAME) == out, "rewriting is not idempotent"
    if not case.rewritten:
        assert out is src.text or out == src.text, "a module with nothing to rewrite was changed"
        return
    before, after = src.text.splitlines(), out.splitlines()
    assert len(before) == len(after) and src.text.count("\n") == out.count("\n"), (
        "line numbers moved"
    )
    changed = [i for i, (b, a) in enumerate(zip(before, after)) if b != a]
    # (none at all when the user's own lists already say everything)
    assert all(i in src.deco_lines for i in changed), [after[i] for i in changed]
    compile(out, FILENAME, "exec", dont_inherit=True)
    nums, names = case.ideal_lists()
    kws = _static_keywords(out)
    assert set(kws) == {"static_argnums", "static_argnames"}, kws
    got_nums, got_names = kws["static_argnums"], kws["static_argnames"]
    assert sorted(got_nums) == sorted(nums), kws  # each position once
    assert sorted(got_names) == sorted(names), kws  # each name once


@TEXT
@given(cases(allow_static=False, pragma="header"))
def test_module_without_static_is_returned_unchanged(case: Case) -> None:
    assert not case.has_static
    src = render(case).text
    out = rewrite_source(src, FILENAME)
    assert out is src or out == src


# -- execution property -----------------------------------------------------------------------


@RUN
@given(cases(pragma="header"))
@example(README_WRAPPER)
def test_rewritten_function_treats_exactly_the_declared_parameters_as_static(case: Case) -> None:
    src = render(case)
    out = rewrite_source(src.text, FILENAME)
    module = execute(out, FILENAME, "prop_module")
    _exercise(case, module.f, module._TRACES, out)
