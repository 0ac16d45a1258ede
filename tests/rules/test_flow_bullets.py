"""Issue 44's list of what JR006 must follow, class by class: each with a program check reports."""

from __future__ import annotations

from pathlib import Path

import pytest
from flow_support import FIELD_CASES, INNER_CASES

from jaxrewrite.engine.findings import trace_findings

CASES = {**FIELD_CASES, **INNER_CASES}

#: Each class of use issue 44 lists, with a program that shows it: a corpus program
#: (tests/rules/dataflow_corpus), a trace-time case (tests/rules/tracetime_cases) or a case of
#: test_flow.py or test_flow_inner.py (CASES/name). Each is labelled by JAX in its own test; here:
#: it exists, JAX rejects it, and check reports it.
BULLETS: dict[str, str] = {
    "arithmetic: range(n + 1)": "tracetime_cases/fail_range_arith",
    "arithmetic: jnp.zeros(n * 2)": "CASES/zeros_of_product",
    "locals: m = n * 2; jnp.zeros(m)": "tracetime_cases/fail_zeros_local",
    "a shape [d * 2 + 1] * ndim": "tracetime_cases/fail_shape_list_repeat",
    "truth: if True and flag": "dataflow_corpus/fail_true_and",
    "truth: while n": "tracetime_cases/fail_while_int",
    "truth: x if p else y": "tracetime_cases/fail_ifexp",
    "truth: assert p": "dataflow_corpus/fail_assert_all",
    "truth: not p": "tracetime_cases/fail_not",
    "truth: if x > 0 under remat, no outer jit": "dataflow_corpus/fail_remat_compare",
    "truth: under checkpoint, no outer jit": "tracetime_cases/fail_checkpoint",
    "parts: x[0] as a bound": "tracetime_cases/fail_index_bound",
    "parts: a field of a traced pytree argument": "dataflow_corpus/fail_eqx_apply_act",
    "parts: a list indexed with a traced value": "dataflow_corpus/fail_list_index",
    "parts: a dict indexed with a traced value": "tracetime_cases/fail_dict_key",
    "passed: a str": "dataflow_corpus/fail_str_argument",
    "passed: a jax.Device": "tracetime_cases/fail_device_passed",
    "passed: an Equinox module holding a function": "dataflow_corpus/fail_eqx_lambda",
    "passed: a NamedTuple of callables": "dataflow_corpus/fail_optimizer_namedtuple",
    "passed: a plain class instance": "dataflow_corpus/fail_plain_instance",
    "passed: self of a method under jax.jit on a plain class": "dataflow_corpus/fail_method_self",
    "functions: a helper building a shape": "dataflow_corpus/fail_reshape_helper",
    "functions: a closure under grad": "CASES/closure_under_grad",
    "functions: the output of an inner jax.jit": "tracetime_cases/fail_inner_jit",
    "library: one_hot num_classes": "dataflow_corpus/fail_one_hot",
    "library: axis=": "dataflow_corpus/fail_sum_axis",
    "library: jnp.eye": "tracetime_cases/fail_eye",
    "library: linspace(num=)": "CASES/linspace_num_local",
    "library: tile": "tracetime_cases/fail_tile",
    "library: split": "dataflow_corpus/fail_split_sections",
    "library: pad widths": "CASES/pad_widths",
    "library: lax.full shapes": "dataflow_corpus/fail_lax_full",
}


@pytest.mark.parametrize("bullet", sorted(BULLETS))
def test_each_class_the_issue_lists_has_a_program_check_reports(bullet: str) -> None:
    where, name = BULLETS[bullet].split("/")
    if where == "CASES":
        _, rejects, found = CASES[name]
        assert rejects and found
        return
    path = Path(__file__).parent / where / f"{name}.py"
    assert name.startswith("fail_") and trace_findings(path.read_text(), str(path))
