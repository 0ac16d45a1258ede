"""JR006 through the inner functions a traced def runs (engine/closures.py): closures called
directly, under grad, vmap, jit, checkpoint and lax's control flow, and grad's own arguments, with
their neighbours; each program labelled by running JAX beside the check (test_flow.check_case).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_flow import HEAD, check_case
from test_tracetime import _jax_rejects

from jaxrewrite.engine.tracetime import trace_findings
from jaxrewrite.migrate.fix import fix_source

#: name -> (program after HEAD, JAX rejects it, check reports it).
CASES: dict[str, tuple[str, bool, bool]] = {
    "closure_under_grad": ("""
@jax.jit
def outer(x, n):
    def loss(p):
        return jnp.sum(jnp.zeros(n) + p)
    return jax.grad(loss)(x)
def main():
    return outer(1.0, 3)
""", True, True),
    "closure_under_grad_static": ("""
@partial(jax.jit, static_argnames="n")
def outer(x, n):
    def loss(p):
        return jnp.sum(jnp.zeros(n) + p)
    return jax.grad(loss)(x)
def main():
    return outer(1.0, 3)
""", False, False),
    "closure_value_and_grad_has_aux": ("""
@jax.jit
def outer(x, n):
    def loss(p):
        return jnp.sum(p * jnp.ones(n)), n
    return jax.value_and_grad(loss, has_aux=True)(x)
def main():
    return outer(1.0, 3)
""", True, True),
    "grad_parameter_truth": ("""
@jax.jit
def outer(x):
    def loss(p):
        if p > 0:
            return p
        return -p
    return jax.grad(loss)(x)
def main():
    return outer(1.0)
""", True, True),
    "grad_parameter_truth_no_outer_trace": ("""
def loss(p):
    if p > 0:
        return p
    return -p
def main():
    return jax.grad(loss)(1.0)
""", False, False),
    # Under jit even grad of a constant is staged (p > 0 is a tracer): the analysis follows only
    # what the call passes, so it stays silent here.
    "grad_parameter_of_constant_stays_silent": ("""
@jax.jit
def outer(x):
    def scale(p):
        if p > 0:
            return p * 2.0
        return p
    return x * jax.grad(scale)(3.0)
def main():
    return outer(1.0)
""", True, False),
    "closure_direct_call": ("""
@jax.jit
def outer(x, n):
    def pad():
        return jnp.zeros(n)
    return x + pad().sum()
def main():
    return outer(1.0, 3)
""", True, True),
    "closure_under_vmap": ("""
@jax.jit
def outer(x, n):
    def row(v):
        return v + jnp.zeros(n).sum()
    return jax.vmap(row)(x)
def main():
    return outer(jnp.ones(2), 3)
""", True, True),
    "closure_decorated_vmap": ("""
@jax.jit
def outer(x, n):
    @jax.vmap
    def row(v):
        return v + jnp.zeros(n).sum()
    return row(x)
def main():
    return outer(jnp.ones(2), 3)
""", True, True),
    "closure_under_checkpoint": ("""
@jax.jit
def outer(x, n):
    def body(v):
        return v + jnp.arange(n).sum()
    return jax.checkpoint(body)(x)
def main():
    return outer(1.0, 3)
""", True, True),
    "closure_fori_loop_body": ("""
@jax.jit
def outer(x, n):
    def body(i, c):
        return c + jnp.zeros(n).sum()
    return lax.fori_loop(0, 3, body, x)
def main():
    return outer(1.0, 3)
""", True, True),
    "closure_fori_loop_zero_trips": ("""
@jax.jit
def outer(x, n):
    def body(i, c):
        return c + jnp.zeros(n).sum()
    return lax.fori_loop(0, 0, body, x)
def main():
    return outer(1.0, 3)
""", True, True),
    "closure_cond_untaken_branch": ("""
@jax.jit
def outer(x, n):
    def keep(v):
        return v
    def grow(v):
        return v + jnp.zeros(n).sum()
    return lax.cond(True, keep, grow, x)
def main():
    return outer(1.0, 3)
""", True, True),
    "closure_while_loop_cond": ("""
@jax.jit
def outer(x, n):
    def cond(c):
        return c[0] < len(range(n))
    def body(c):
        return c[0] + 1, c[1]
    return lax.while_loop(cond, body, (0, x))
def main():
    return outer(1.0, 3)
""", True, True),
    "closure_scan_body": ("""
@jax.jit
def outer(x, n):
    def step(c, v):
        return c + jnp.ones(n).sum(), v
    return lax.scan(step, x, jnp.ones(2))
def main():
    return outer(1.0, 3)
""", True, True),
    "closure_rebound_to_constant": ("""
@jax.jit
def outer(x, n):
    n = 3
    def loss(p):
        return jnp.sum(jnp.zeros(n) + p)
    return jax.grad(loss)(x)
def main():
    return outer(1.0, 3)
""", False, False),
    "closure_own_parameter_shadows": ("""
@jax.jit
def outer(x, n):
    def loss(p, n=3):
        return jnp.sum(jnp.zeros(n) + p)
    return jax.grad(loss)(x)
def main():
    return outer(1.0, 3)
""", False, False),
    "closure_called_under_branch": ("""
@jax.jit
def outer(x, n, flag: bool = False):
    def loss(p):
        return jnp.sum(jnp.zeros(n) + p)
    if flag:
        return jax.grad(loss)(x)
    return x
def main():
    return outer(1.0, 3)
""", False, False),
    "closure_never_called": ("""
@jax.jit
def outer(x, n):
    def loss(p):
        return jnp.sum(jnp.zeros(n) + p)
    return x
def main():
    return outer(1.0, 3)
""", False, False),
    "closure_through_lambda_stays_silent": ("""
@jax.jit
def outer(x, n):
    def loss(p):
        return jnp.sum(jnp.zeros(n) + p)
    return jax.grad(lambda p: loss(p))(x)
def main():
    return outer(1.0, 3)
""", True, False),
}


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
        "        return jnp.sum(jnp.zeros(n) + p)\n    return jax.grad(loss)(x)\n\n\nrun = jax.jit(outer)\n"
    )
    fixed = fix_source(text, "c.py")
    assert fixed.fixed == [("outer", "n")] and "jax.jit(outer, static_argnames=('n',))" in fixed.text
    path = tmp_path / "fixed.py"
    path.write_text(fixed.text + "\n\ndef main():\n    return run(1.0, 3)\n")
    assert not _jax_rejects(path) and not trace_findings(fixed.text, "c.py")
    path.write_text(text + "\n\ndef main():\n    return run(1.0, 3)\n")
    assert _jax_rejects(path)
