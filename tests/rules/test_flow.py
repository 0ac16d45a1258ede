"""JR006 through the fields, methods and properties of traced pytree arguments
(findings/call_arguments.py), with their neighbours, and the library parameters issue 44 names,
spelled through locals (inner functions: test_flow_inner.py; the issue's list, class by class:
test_flow_bullets.py).

Each program is labelled by running it under JAX beside the check (does ``main()`` raise a
trace-time error?): a finding where JAX fails, none where it runs, and the cases the analysis
cannot see named as such (silent, though JAX fails).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from flow_support import FIELD_CASES as CASES
from flow_support import HEAD, check_case

from jaxrewrite.engine.findings import trace_findings
from jaxrewrite.migrate.fix import fix_source


@pytest.mark.parametrize("name", sorted(CASES))
def test_finding_where_jax_fails(name: str, tmp_path: Path) -> None:
    check_case(name, CASES[name], tmp_path)


def test_field_finding_names_the_field_and_its_library_spelling() -> None:
    body = CASES["eqx_self_field"][0]
    (finding,) = trace_findings(HEAD + body, "m.py")
    assert (
        "self.n is a field of M that JAX traces: declare the field with equinox.field(static=True)"
        in finding.message
    )
    body = CASES["flax_struct_field"][0]
    (finding,) = trace_findings(HEAD + body, "s.py")
    assert (
        "s.k is a field of S" in finding.message
        and "flax.struct.field(pytree_node=False)" in finding.message
    )


def test_field_finding_is_not_fixed_by_making_the_argument_static() -> None:
    """A pytree holding arrays cannot be static (unhashable): --fix leaves it, the finding says
    why."""
    text = HEAD + CASES["namedtuple_range"][0]
    fixed = fix_source(text, "s.py")
    assert fixed.text == text and not fixed.fixed


def test_static_marked_field_stays_concrete() -> None:
    """A ``Static[...]`` field is completed to the library's static field when jaxrewrite rewrites
    the module (engine/read/classes.py), so the check reads it as static: no finding."""
    text = (
        "# jaxrewrite: enable\nimport equinox as eqx\nimport jax\nimport jax.numpy as jnp\n"
        "from jaxrewrite import Static\n\n\nclass M(eqx.Module):\n    n: Static[int]\n"
        "    w: jax.Array\n\n"
        "    @jax.jit\n    def __call__(self, x):\n        return x + jnp.zeros(self.n) * self.w\n"
    )
    assert trace_findings(text, "m.py") == []
    assert len(trace_findings(text.replace("n: Static[int]", "n: int"), "m.py")) == 1
