"""A method's calls bind its parameters as Python does (issue 52 item 4): through an instance
(``A().m``, ``a.m`` after ``a = A()``, ``self.m``) a bound method's ``self`` and a classmethod's
``cls`` are filled before the call's arguments; through the class (``A.m``, ``cls.m``) only a
classmethod's ``cls``; a staticmethod's never. JR006 reads what those calls pass, and ``--fix``
writes Static only where JAX would reject the call (the cases run for real in
tests/tracetime_cases: ``*method*``, ``*classmethod*``, ``*staticmethod*``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support import jaxrewrite, python, write
from jaxrewrite.engine.findings import trace_findings

CASES = Path(__file__).parent / "tracetime_cases"


@pytest.mark.parametrize(
    "case, named",
    [
        ("ok_staticmethod_instance", set()),
        ("ok_method_kinds", set()),
        ("fail_staticmethod_self_str", {"mode"}),
        ("fail_method_bound_str", {"act"}),
        ("fail_classmethod_cls_str", {"kind"}),
        ("fail_method_through_class_str", {"act"}),
    ],
)
def test_each_call_form_names_the_parameter_the_argument_binds(case: str, named: set[str]) -> None:
    found = trace_findings((CASES / f"{case}.py").read_text(encoding="utf-8"), f"{case}.py")
    assert {d.message.split("'")[1] for d in found} == named, [d.message for d in found]


ISSUE = """\
# jaxrewrite: enable
import jax
import jax.numpy as jnp


class A:
    @staticmethod
    @jax.jit
    def make(x, n):
        return x * n

    def use(self, x):
        return self.make(x, 3)

    @classmethod
    def also(cls, x):
        return cls.make(x, 4)


print(float(A().make(jnp.float32(2.0), 2)), float(A().use(jnp.float32(2.0))))
"""


def test_fix_leaves_a_staticmethod_called_through_an_instance_alone(tmp_path: Path) -> None:
    """The instance is no argument of a staticmethod: nothing to report, nothing to fix (it used
    to count as ``x`` and ``--fix`` made the traced array Static)."""
    m = write(tmp_path / "m.py", ISSUE)
    done = jaxrewrite("check", "--no-cache", "--fix", "m.py", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "All checks passed!\n", ""), done
    assert m.read_text(encoding="utf-8") == ISSUE
    ran = jaxrewrite("m.py", cwd=tmp_path)
    assert (ran.returncode, ran.stdout) == (0, "4.0 6.0\n"), ran.stderr


BOUND = """\
# jaxrewrite: enable
from functools import partial

import jax
import jax.numpy as jnp

TRACES = []


class Act:
    @partial(jax.jit, static_argnums=0)
    def apply(self, x, act):
        TRACES.append(act)
        return jnp.tanh(x) if act == "tanh" else x

    def twice(self, x):
        return self.apply(self.apply(x, "tanh"), "id")


a = Act()
print(float(a.twice(jnp.float32(0.5))), float(a.twice(jnp.float32(0.5))), len(TRACES))
"""


def test_fix_through_a_bound_method_call_runs_as_the_same_program_jitted_by_hand(tmp_path: Path) -> None:
    """``self.apply(x, "tanh")`` passes the str to ``act`` (self is bound): ``--fix`` makes ``act``
    Static, and the fixed module runs as ``static_argnums=(0, 2)`` written by hand: same
    results, one trace per value of ``act``."""
    m = write(tmp_path / "fixed.py", BOUND)
    found = jaxrewrite("check", "--no-cache", "fixed.py", cwd=tmp_path)
    assert found.returncode == 1 and "passes a str as 'act'" in found.stdout, found.stdout
    done = jaxrewrite("check", "--no-cache", "--fix", "fixed.py", cwd=tmp_path)
    assert done.returncode == 0 and "act of apply made Static" in done.stderr, done
    assert "act: Static" in m.read_text(encoding="utf-8")
    write(tmp_path / "by_hand.py", BOUND.replace("static_argnums=0", "static_argnums=(0, 2)").replace("# jaxrewrite: enable\n", ""))
    rewritten = jaxrewrite("fixed.py", cwd=tmp_path)
    plain = python("by_hand.py", cwd=tmp_path)
    assert rewritten.returncode == 0 and plain.returncode == 0, (rewritten.stderr, plain.stderr)
    assert rewritten.stdout == plain.stdout == "0.46211716532707214 0.46211716532707214 2\n"
