"""The cheap pre-filters only skip work: with every one of them disabled the output is the same.

They decide by name and by text search what the planner looks at (defs whose signature
lines mention a marker name, function bodies with a def or decorator line, lines where a
marked name is a first argument). A filter that wrongly skips something would silently drop
statics, so every golden input and a set of awkward layouts are rewritten both ways (and
generated modules, in tests/engine/test_prefilters_generated.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from golden_cases import GOLDEN, inputs, outcome

from jaxrewrite.engine.read.filters import EXHAUSTIVE, Filters

LAYOUTS = {
    "signature ends on the body line": """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

@jax.jit
def f(x,
      n: Static[int]): return x
""",
    "call site split over lines with a comment": """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

def f(x, n: Static[int]):
    return x

g = jax.jit(  # the function comes next
    f,
)
h = jax.jit((f))
""",
    "nested def in a body without decorators on its own line": """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

def outer():
    x = 1; \\
    y = 2
    inner = jax.jit(lambda a: a)
    def helper(a, n: Static[int]): return a
    return jax.vmap(helper)
""",
    "marker alias used far away": """\
# jaxrewrite: enable
import jax
import jaxrewrite as jr

S = jr.Static[int]
T = S

@jax.jit
def f(x, n: T, m: "S"):
    return x
""",
    "call site inside a deferred body": """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

def f(x, n: Static[int]):
    return x

def build(flag):
    if flag:
        return jax.pmap(f)
    return [jax.jit(f) for _ in range(2)]
""",
    "alias made in a deferred body": """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

def f(x, n: Static[int]):
    return x

def build():
    g = f
    return jax.jit(g)

def chain():
    g = f
    h = g
    return jax.vmap(h)

def annotated():
    g: object = \\
        f
    return jax.pmap(g)

def walrus(flag):  # a walrus binds an opaque name: rewritten neither way (check: JR002)
    if (g := f) and flag:
        return jax.jit(g)
""",
    "class with static fields registered later": """\
# jaxrewrite: enable
import dataclasses
import jax
from jaxrewrite import Static

@dataclasses.dataclass
class P:
    x: jax.Array
    n: Static[int]

def register():
    jax.tree_util.register_dataclass(P)
""",
}


CASES = [(p.relative_to(GOLDEN).as_posix(), p.read_text(encoding="utf-8")) for p in inputs()]
CASES += list(LAYOUTS.items())


@pytest.mark.parametrize(("name", "source"), CASES, ids=[name for name, _ in CASES])
def test_prefilters_change_nothing(name: str, source: str) -> None:
    filtered = outcome(source, name)
    assert outcome(source, name, EXHAUSTIVE) == filtered
    for each in ("marker_names", "first_arguments"):
        assert outcome(source, name, Filters(**{each: False})) == filtered, each


def test_layouts_are_rewritten() -> None:
    """The layouts above are not vacuous: each has something to rewrite."""
    for name, source in LAYOUTS.items():
        assert outcome(source, name) != source, name


def test_golden_inputs_exist() -> None:
    assert len(CASES) > 60 and Path(GOLDEN).is_dir()


#: Text searches over a module whose strings hold "(#" and then many "#"s, as templates of C
#: code do (numpy's f2py: "(#optargs_td##args_td##...#)"): a first-argument search there used
#: to try every way to split the run into comments, 2**n of them (30 pairs: minutes, stalling the
#: import of the module). Measured against the same module without the "(", in one process.
_BACKTRACK = """
import sys, time
from jaxrewrite import rewrite_source
from jaxrewrite.engine.read.filters import FIRST_ARGUMENT

def module(opening):
    return (
        "# jaxrewrite: enable\\nimport jax\\nfrom jaxrewrite import Static\\n\\n"
        + f"A = '{opening}#" + "a#" * 400 + "'\\nB = '" + opening + "#" + "1#" * 400 + "'\\n\\n"
        + "def f(x, k: Static[int]):\\n    return x * k\\n\\ng = jax.jit(f)\\n"
    )

def cost(text):
    start = time.perf_counter()
    for _ in range(20):
        assert "static_argnums=(1,)" in rewrite_source(text, "m.py")
        FIRST_ARGUMENT.findall(text)
    return time.perf_counter() - start

cost(module("["))
print(cost(module("(")) / cost(module("[")))
"""


def test_first_argument_searches_are_linear_in_a_short_run_of_hashes() -> None:
    """In process, so under Pyodide too: 16 pairs, where the old reading took 0.05 s a search
    (against microseconds for the same text without the "("), best of five."""
    import time

    from jaxrewrite.engine.read.filters import FIRST_ARGUMENT

    def best(opening: str) -> float:
        text = f"A = '{opening}#" + "a#" * 16 + "'\nB = '" + opening + "#" + "1#" * 16 + "'\n"
        costs = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(20):
                FIRST_ARGUMENT.findall(text)
            costs.append(time.perf_counter() - start)
        return min(costs)

    best("[")
    assert best("(") / best("[") < 20


@pytest.mark.skipif(
    sys.platform == "emscripten", reason="Pyodide starts no processes: the test above runs there"
)
def test_first_argument_searches_are_linear_in_runs_of_hashes() -> None:
    import subprocess

    ran = subprocess.run(
        [sys.executable, "-c", _BACKTRACK], capture_output=True, text=True, timeout=300, check=False
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert float(ran.stdout) < 3, ran.stdout  # exponential: no end; linear: the same cost
