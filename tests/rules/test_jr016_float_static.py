"""JR016's claim, run on JAX: a Static float under jit traces the function once per distinct value
(a traced float, once for all), which is what the finding says."""

from __future__ import annotations

from golden_cases import execute

from jaxrewrite import rewrite_source
from jaxrewrite.engine.findings import lint_analysis

SOURCE = """\
# jaxrewrite: enable
import jax

from jaxrewrite import Static

TRACES = []


@jax.jit
def step(x, lr: Static[float]):
    TRACES.append(lr)
    return x * lr


@jax.jit
def traced(x, lr: float):
    TRACES.append("traced")
    return x * lr
"""


def test_a_static_float_traces_once_per_value_and_is_reported() -> None:
    module = execute(rewrite_source(SOURCE, "m.py"), "m.py", "jr016_float_static")
    for lr in (0.1, 0.2, 0.3, 0.1):
        module.step(1.0, lr)
        module.traced(1.0, lr)
    assert module.TRACES.count("traced") == 1
    assert [t for t in module.TRACES if t != "traced"] == [0.1, 0.2, 0.3]
    found = [(d.code, d.line) for d in lint_analysis(SOURCE, "m.py").diagnostics]
    assert found == [("JR016", 10)]
