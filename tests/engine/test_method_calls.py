"""A method's calls bind its parameters as Python does (issue 52 item 4): through an instance
(``A().m``, ``a.m`` after ``a = A()``, ``self.m``) a bound method's ``self`` and a classmethod's
``cls`` are filled before the call's arguments; through the class (``A.m``, ``cls.m``) only a
classmethod's ``cls``; a staticmethod's never. JR006 reads what those calls pass, and ``--fix``
writes Static only where JAX would reject the call (the cases run for real in
tests/rules/tracetime_cases: ``*method*``, ``*classmethod*``, ``*staticmethod*``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import jaxrewrite, python, write

from jaxrewrite.engine.findings import analyze, lint_analysis, trace_findings

CASES = Path(__file__).resolve().parents[1] / "rules" / "tracetime_cases"


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


def test_fix_through_a_bound_method_call_runs_as_the_same_program_jitted_by_hand(
    tmp_path: Path,
) -> None:
    """``self.apply(x, "tanh")`` passes the str to ``act`` (self is bound): ``--fix`` makes ``act``
    Static, and the fixed module runs as ``static_argnums=(0, 2)`` written by hand: same
    results, one trace per value of ``act``."""
    m = write(tmp_path / "fixed.py", BOUND)
    found = jaxrewrite("check", "--no-cache", "fixed.py", cwd=tmp_path)
    assert found.returncode == 1 and "passes a str as 'act'" in found.stdout, found.stdout
    done = jaxrewrite("check", "--no-cache", "--fix", "fixed.py", cwd=tmp_path)
    assert (
        done.returncode == 0 and "Fixed JR006: 'act' of 'apply' annotated Static" in done.stderr
    ), done
    assert "act: Static" in m.read_text(encoding="utf-8")
    write(
        tmp_path / "by_hand.py",
        BOUND.replace("static_argnums=0", "static_argnums=(0, 2)").replace(
            "# jaxrewrite: enable\n", ""
        ),
    )
    rewritten = jaxrewrite("fixed.py", cwd=tmp_path)
    plain = python("by_hand.py", cwd=tmp_path)
    assert rewritten.returncode == 0 and plain.returncode == 0, (rewritten.stderr, plain.stderr)
    assert rewritten.stdout == plain.stdout == "0.46211716532707214 0.46211716532707214 2\n"


# -- a transform of a bound method (issue 52 item 7) --------------------------------------------

BOUND_HEAD = (
    "# jaxrewrite: enable\nfrom functools import partial\n\nimport jax\n"
    "import jax.numpy as jnp\nfrom jaxrewrite import Static\n\nTRACES = []\n\n\n"
)

JIT = "    def __init__(self):\n        self.fast = {call}\n\n"
STEP = (
    "    def {name}({first}x, n: Static[int]):\n        TRACES.append(n)\n"
    "        return x * jnp.ones(n).sum()\n"
)
NUMS = "static_argnums=(1,), static_argnames=('n',)"

#: How the method is handed to a transform -> (class body, the keywords JR002 says to write).
SPELLINGS = {
    "jit_in_init": (
        JIT.format(call="jax.jit(self.step)") + STEP.format(name="step", first="self, "),
        NUMS,
    ),
    "private_name": (
        JIT.format(call="jax.jit(self._step)") + STEP.format(name="_step", first="self, "),
        NUMS,
    ),
    "donated": (
        JIT.format(call="jax.jit(self.step, donate_argnums=0)")
        + STEP.format(name="step", first="self, "),
        NUMS,
    ),
    "partial_jit": (
        JIT.format(call="partial(jax.jit, inline=True)(self.step)")
        + STEP.format(name="step", first="self, "),
        NUMS,
    ),
    "another_method": (
        (
            "    def __init__(self):\n        self.build()\n\n    def build(self):\n"
            "        self.fast = jax.jit(self.step)\n\n"
        )
        + STEP.format(name="step", first="self, "),
        NUMS,
    ),
    "vmap": (
        JIT.format(call="jax.vmap(self.step)") + STEP.format(name="step", first="self, "),
        "in_axes=(0, None)",
    ),
    "staticmethod": (
        JIT.format(call="jax.jit(self.step)")
        + "    @staticmethod\n"
        + STEP.format(name="step", first=""),
        NUMS,
    ),
    "classmethod": (
        JIT.format(call="jax.jit(self.step)")
        + "    @classmethod\n"
        + STEP.format(name="step", first="cls, "),
        NUMS,
    ),
}

RUN = "\n\nm = M()\nOUT = [m.fast(jnp.ones(2), k).tolist() for k in (3, 3, 4)] + [len(TRACES)]\n"


def _keywords_written(spelling: str) -> str:
    """The module with the keywords JR002 gives written into the call, in plain JAX."""
    body, keywords = SPELLINGS[spelling]
    call = next(line for line in body.splitlines() if "self.fast = " in line).strip()
    text = BOUND_HEAD + "class M:\n" + body + RUN
    return (
        text.replace("# jaxrewrite: enable\n", "")
        .replace(": Static[int]", "")
        .replace(call, call[:-1] + ", " + keywords + ")")
    )


def _decorated(spelling: str) -> str:
    """The same class with ``n`` made static on the def itself, by hand (no bound-method
    transform)."""
    body, _ = SPELLINGS[spelling]
    call = next(line for line in body.splitlines() if "self.fast = " in line).strip()
    text = (
        (BOUND_HEAD + "class M:\n" + body + RUN)
        .replace("# jaxrewrite: enable\n", "")
        .replace(": Static[int]", "")
    )
    if spelling == "vmap":
        return text.replace(
            call, "self.fast = lambda x, n: jax.vmap(self.step, in_axes=(0, None))(x, n)"
        )
    nums = (
        "1" if spelling == "staticmethod" else "(0, 2)"
    )  # self (or cls) static too: a plain class
    fn = "_step" if "_step" in call else "step"
    text = text.replace(
        f"    def {fn}(", f"    @partial(jax.jit, static_argnums={nums})\n    def {fn}("
    )
    return text.replace(call, f"self.fast = self.{fn}")


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_transform_of_a_bound_method_says_the_keywords_to_write(spelling: str) -> None:
    """JR002 says what the limit is and the keywords for that def, counted as JAX counts the
    bound method's parameters (without ``self``/``cls``; a staticmethod's as in the def); the
    import says the same."""
    body, keywords = SPELLINGS[spelling]
    text = BOUND_HEAD + "class M:\n" + body
    (found,) = lint_analysis(text, "m.py").diagnostics
    assert (
        found.code == "JR002"
        and "jaxrewrite writes keywords only where a transform is applied to a def by its name"
        in found.message
    )
    assert found.message.endswith(f": {keywords}"), found.message
    (at_import,) = analyze(text, "m.py", report=True).diagnostics
    assert at_import.message == found.message


def test_the_keywords_said_for_a_bound_method_make_it_static_as_a_decorator_by_hand(
    tmp_path: Path,
) -> None:
    """Written at the call, the keywords JR002 gives make ``n`` static: each program runs as the
    same class with the transform on the def by hand (same results, the same traces: one per
    value of ``n`` under jit; vmap keeps no cache)."""
    names = []
    for spelling in sorted(SPELLINGS):
        write(tmp_path / f"said_{spelling}.py", _keywords_written(spelling))
        write(tmp_path / f"hand_{spelling}.py", _decorated(spelling))
        names += [f"said_{spelling}", f"hand_{spelling}"]
    child = (
        "import importlib, json, sys\nprint(json.dumps({n: importlib.import_module(n).OUT for "
        "n in sys.argv[1:]}))\n"
    )
    write(tmp_path / "child.py", child)
    ran = python("child.py", *names, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    for spelling in SPELLINGS:
        said, hand = out[f"said_{spelling}"], out[f"hand_{spelling}"]
        assert (
            said == hand == [[3.0, 3.0], [3.0, 3.0], [4.0, 4.0], 3 if spelling == "vmap" else 2]
        ), (spelling, said, hand)
