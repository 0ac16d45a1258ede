"""JR006 through the inner functions a traced def runs (engine/findings/traced_body.py): closures
called directly, under grad, vmap, jit, checkpoint and lax's control flow, and grad's own arguments,
with their neighbours; each program labelled by running JAX beside the check (test_flow.check_case).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from flow_support import HEAD, check_case
from flow_support import INNER_CASES as CASES
from golden_cases import jax_rejects

from jaxrewrite.engine.findings import trace_findings
from jaxrewrite.migrate.fix import fix_source


@pytest.mark.parametrize("name", sorted(CASES))
def test_finding_where_jax_fails(name: str, tmp_path: Path) -> None:
    check_case(name, CASES[name], tmp_path)


def test_closure_finding_is_at_the_call_naming_the_inner_use() -> None:
    text = HEAD + CASES["closure_under_grad"][0]
    (finding,) = trace_findings(text, "c.py")
    call = text.splitlines().index("    return jax.grad(loss)(x)") + 1
    assert finding.line == call
    assert "'n' is traced by jit" in finding.message and "loss() (line" in finding.message
    assert "static_argnames=('n',)" in finding.message


def test_closure_finding_is_fixed_on_the_outer_def(tmp_path: Path) -> None:
    """The closure reads the outer parameter: making it static for the outer jit fixes it, and
    the fixed program runs under JAX."""
    text = (
        "import jax\nimport jax.numpy as jnp\n\n\ndef outer(x, n):\n    def loss(p):\n"
        "        return jnp.sum(jnp.zeros(n) + p)\n    return jax.grad(loss)(x)\n\n\n"
        "run = jax.jit(outer)\n"
    )
    fixed = fix_source(text, "c.py")
    assert (
        fixed.fixed == [("outer", "n")] and "jax.jit(outer, static_argnames=('n',))" in fixed.text
    )
    path = tmp_path / "fixed.py"
    path.write_text(fixed.text + "\n\ndef main():\n    return run(1.0, 3)\n")
    assert not jax_rejects(path) and not trace_findings(fixed.text, "c.py")
    path.write_text(text + "\n\ndef main():\n    return run(1.0, 3)\n")
    assert jax_rejects(path)
