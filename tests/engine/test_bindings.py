"""Names bound more than once, and PEP 695 type parameters (issue 52, items 1-3): one model of
what a name denotes (``engine/read/denote.py``) for markers and transforms alike.

A marker alias bound on several paths (both branches of a version check, ``try``/``except``, a
rebinding after the def) is that marker when every binding is; it was dropped, its parameters
traced, with a false JR008. A transform name bound on several paths to transforms with the same
static arguments (an ``ImportError`` fallback, jit or pjit by version, ``jax = None`` as the
optional-import guard) is that transform; JR104 refused it. Where the bindings disagree, JR104
names both, with file and line. A type parameter (``def f[S]``) shadows a module's ``S``.

Every rewrite runs beside the same program written by hand in plain JAX (results and what each
trace saw), and ``check`` (the analysis with lint) agrees with the import.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import pytest

import jaxrewrite
from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite.engine.analysis import State
from jaxrewrite.engine.read.filters import EXHAUSTIVE, FAST
from jaxrewrite.hook import pycfile

#: The use every case shares: ``n`` drives ``range(n)``, so only a static ``n`` traces; each
#: trace records what it saw (the value where static, else "traced").
USE = """
def f(x, n{ann}):
    TRACES.append(n if isinstance(n, int) else "traced")
    return x * len(range(n)) if isinstance(n, int) else x * n


OUT = [f(jnp.ones(2), 3), f(jnp.ones(2), 3), f(jnp.ones(2), 4)]
"""

MARKER_HEAD = """\
# jaxrewrite: enable
import sys
from typing import Annotated

import jax
import jax.numpy as jnp
import jaxrewrite
from jaxrewrite import STATIC, Static

TRACES = []
"""

#: The same program by hand: ``n`` static by position and by name, as the rewrite writes it.
HAND = (
    "import functools\nimport jax\nimport jax.numpy as jnp\n\nTRACES = []\n\n"
    "@functools.partial(jax.jit, static_argnums=(1,), static_argnames=('n',))" + USE.format(ann="")
)
#: The same program with ``n`` traced.
HAND_TRACED = "import jax\nimport jax.numpy as jnp\n\nTRACES = []\n\n@jax.jit" + USE.format(ann="")


def _run(source: str) -> tuple[list[list[float]], list[Any]]:
    namespace: dict[str, Any] = {"__name__": "bindings_case"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jaxrewrite.NotRewrittenWarning)  # exec'd: not the hook's
        warnings.simplefilter("ignore", DeprecationWarning)  # jax.experimental.pjit
        exec(compile(source, "m.py", "exec"), namespace)
    return [o.tolist() for o in namespace["OUT"]], namespace["TRACES"]


def _same_as(source: str, hand: str) -> None:
    """The rewrite, by every route, runs as ``hand`` does; ``check`` has nothing to say and
    every marker is applied."""
    analysis = jaxrewrite.analyze(source, "m.py", lint=True)
    assert [str(d) for d in analysis.diagnostics] == []
    assert analysis.ledger and {e.state for e in analysis.ledger} == {State.APPLIED}
    rewritten = rewrite_source(source, "m.py")
    assert rewrite_source(source, "m.py", filters=EXHAUSTIVE) == rewritten
    assert rewrite_source(source, "m.py", filters=FAST) == rewritten
    assert rewritten != source
    # The hook's one route (rewrite_source, then compile) warns of nothing.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pycfile.compile_source(source.encode(), "m.py")
    assert [w for w in caught if issubclass(w.category, jaxrewrite.RewriteWarning)] == []
    assert _run(rewritten) == _run(hand)


# -- item 2: a marker alias bound on several paths ------------------------------------------------

MARKERS = {
    "version check": (
        "if sys.version_info >= (3, 10):\n    S = Static[int]\nelse:\n    S = Static[int]\n"
    ),
    "try/except": "try:\n    S = Static[int]\nexcept ImportError:\n    S = Static[int]\n",
    "rebinding after the def": "S = Static[int]\n{use}\nS = Static[int]\n",
    # neighbours: other statements that bind on several paths, other spellings of one marker
    "try/except/else": (
        "try:\n    import numpy\nexcept ImportError:\n    S = Static[int]\n"
        "else:\n    S = Static[int]\n"
    ),
    "match arms": (
        "match sys.platform:\n    case 'linux':\n        S = Static[int]\n"
        "    case _:\n        S = Static[int]\n"
    ),
    "two spellings": (
        "if sys.version_info >= (3, 10):\n    S = Static[int]\n"
        "else:\n    S = Annotated[int, STATIC]\n"
    ),
    "import or alias": (
        "if sys.argv:\n    from jaxrewrite import Static as S\nelse:\n    S = jaxrewrite.Static\n"
    ),
    "a if c else b": "S = Static[int] if sys.argv else Annotated[int, jaxrewrite.STATIC]\n",
}


def _marker_case(bindings: str, ann: str = ": S") -> str:
    use = "@jax.jit" + USE.format(ann=ann)
    if "{use}" in bindings:
        return MARKER_HEAD + bindings.format(use=use)
    return MARKER_HEAD + bindings + "\n" + use


@pytest.mark.parametrize("case", MARKERS, ids=list(MARKERS))
def test_a_marker_bound_on_every_path_is_that_marker(case: str) -> None:
    _same_as(_marker_case(MARKERS[case]), HAND)


def test_the_aliases_are_applied_not_reported() -> None:
    """JR008 said the alias 'is used by no annotation': both bindings end as the use does."""
    analysis = jaxrewrite.analyze(_marker_case(MARKERS["version check"]), "m.py", lint=True)
    assert [(e.name, e.state) for e in analysis.ledger] == [
        ("S", State.APPLIED),
        ("S", State.APPLIED),
        ("f.n", State.APPLIED),
    ]


def _lines(text: str, needle: str) -> list[int]:
    return [number for number, line in enumerate(text.splitlines(), 1) if needle in line]


@pytest.mark.parametrize(
    "other", ["S = int", "S = None", "from jaxrewrite import NoDiff as S", "def S(): pass"]
)
def test_a_marker_and_something_else_is_refused_naming_both(other: str) -> None:
    source = _marker_case(f"if sys.argv:\n    S = Static[int]\nelse:\n    {other}\n")
    with pytest.raises(RewriteError) as caught:
        rewrite_source(source, "m.py")
    err = caught.value
    first, second = _lines(source, "S = Static[int]")[0], _lines(source, other)[0]
    where = _lines(source, "def f(")[0]
    assert err.code == "JR104" and err.lineno == where  # type: ignore[attr-defined]
    assert f"m.py:{first}" in str(err) and f"m.py:{second}" in str(err), str(err)
    assert "'S' marks this parameter" in str(err) or "cannot tell whether 'S'" in str(err)
    analysis = jaxrewrite.analyze(source, "m.py", lint=True)
    assert ("JR104", where) in [(d.code, d.line) for d in analysis.diagnostics]
    if other.startswith("S ="):  # two assignments: the alias is refused with its use, not unused
        assert {(e.name, e.state, e.code) for e in analysis.ledger} == {
            ("S", State.REFUSED, "JR104"),
            ("f.n", State.REFUSED, "JR104"),
        }


def test_names_that_disagree_where_nothing_reads_them_are_no_error() -> None:
    """Refused only where a use depends on it: no annotation reads ``T`` as a marker here."""
    bindings = "if sys.argv:\n    T = Static[int]\nelse:\n    T = int\n\n"
    source = MARKER_HEAD + bindings + "@jax.jit" + USE.format(ann=": Static[int]")
    assert not jaxrewrite.analyze(source, "m.py").errors
    assert _run(rewrite_source(source, "m.py")) == _run(HAND)


# -- item 3: a transform name bound on several paths ----------------------------------------------

TRANSFORM_HEAD = """\
# jaxrewrite: enable
import functools
import sys

import jax.numpy as jnp
from jaxrewrite import Static

TRACES = []
"""

#: Each binds ``jit`` (or ``jax``) on several paths; the decorator is the case's own.
TRANSFORMS = {
    "ImportError fallback": (
        "try:\n    from jax import jit\nexcept ImportError:\n    jit = None\n",
        "@jit",
    ),
    "jit or pjit by version": (
        (
            "import jax\nif jax.__version_info__ >= (0, 4):\n    from jax import jit\n"
            "else:\n    from jax.experimental.pjit import pjit as jit\n"
        ),
        "@jit",
    ),
    "rebinding after the decorator": (
        "import jax\nfrom jax import jit\n{use}\njit = functools.partial(jax.jit)\n",
        "@jit",
    ),
    "optional-import guard": (
        "try:\n    import jax\nexcept ImportError:\n    jax = None\n",
        "@jax.jit",
    ),
    # neighbours
    "a if c else b": ("import jax\njit = jax.jit if sys.argv else jax.jit\n", "@jit"),
    "from jax import jit twice": (
        "import jax\nif sys.argv:\n    from jax import jit\nelse:\n    from jax import jit\n",
        "@jit",
    ),
    "partial in two branches": (
        (
            "import jax\nif sys.argv:\n    jit = functools.partial(jax.jit, donate_argnums=())\n"
            "else:\n    jit = functools.partial(jax.jit, donate_argnums=())\n"
        ),
        "@jit",
    ),
    "guard, then partial": (
        "try:\n    import jax\nexcept ImportError:\n    jax = None\n",
        "@functools.partial(jax.jit, donate_argnums=())",
    ),
    "fallback, at a call site": (
        "try:\n    from jax import jit\nexcept ImportError:\n    jit = None\n",
        "{call}",
    ),
}


def _transform_case(bindings: str, deco: str) -> str:
    if deco == "{call}":
        use = USE.format(ann=": Static[int]").replace("\n\nOUT", "\n\nf = jit(f)\nOUT")
    else:
        use = deco + USE.format(ann=": Static[int]")
    if "{use}" in bindings:
        return TRANSFORM_HEAD + bindings.format(use=use)
    return TRANSFORM_HEAD + bindings + "\n" + use


@pytest.mark.parametrize("case", TRANSFORMS, ids=list(TRANSFORMS))
def test_a_transform_bound_on_every_path_is_that_transform(case: str) -> None:
    _same_as(_transform_case(*TRANSFORMS[case]), HAND)


@pytest.mark.parametrize(
    ("other", "said"),
    [
        ("jit = print", "print"),
        ("from jax import vmap as jit", "jax.vmap"),
        ("def jit(f): return f", "def jit"),
    ],
)
def test_transforms_that_disagree_are_refused_naming_both(other: str, said: str) -> None:
    bindings = f"import jax\nif sys.argv:\n    from jax import jit\nelse:\n    {other}\n"
    source = _transform_case(bindings, "@jit")
    with pytest.raises(RewriteError) as caught:
        rewrite_source(source, "m.py")
    err = caught.value
    first, second = _lines(source, "from jax import jit")[0], _lines(source, other)[0]
    where = _lines(source, "@jit")[0]
    assert err.code == "JR104" and err.lineno == where  # type: ignore[attr-defined]
    assert f"to jax.jit (m.py:{first}) and to {said} (m.py:{second})" in str(err), str(err)
    assert "bound once to a transform" not in str(err)
    codes = [(d.code, d.line) for d in jaxrewrite.analyze(source, "m.py", lint=True).diagnostics]
    assert ("JR104", err.lineno) in codes  # type: ignore[attr-defined]


def test_a_guard_binding_something_callable_is_still_refused() -> None:
    """Only a path where the use raises is left out: ``jax`` bound to a module-like object in
    the fallback may have a ``jit`` of its own, whose statics nothing says."""
    bindings = "try:\n    import jax\nexcept ImportError:\n    import types as jax\n"
    with pytest.raises(RewriteError, match=r"JR104.*'jax' is bound more than once"):
        rewrite_source(_transform_case(bindings, "@jax.jit"), "m.py")


# -- item 1: PEP 695 type parameters --------------------------------------------------------------

needs_312 = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="PEP 695 syntax parses from Python 3.12 on"
)

#: ``S`` is a marker at module level; in each case a type parameter ``S`` shadows it where ``n``
#: is annotated, so ``n`` is traced, as by hand with no static argument at all.
SHADOWED = {
    "generic def": "@jax.jit" + USE.format(ann=": S").replace("def f(", "def f[S]("),
    "generic class": (
        "class Box[S]:\n    @staticmethod\n    @jax.jit\n    def f(x, n: S):\n"
        "        TRACES.append(n if isinstance(n, int) else 'traced')\n        return x * n\n\n\n"
        "f = Box.f\nOUT = [f(jnp.ones(2), 3), f(jnp.ones(2), 3), f(jnp.ones(2), 4)]\n"
    ),
    "type statement": "type X[S] = S\n\n\n@jax.jit" + USE.format(ann=": X"),
    # neighbour: a def nested in a generic def sees the type parameter too
    "nested in a generic def": (
        "def make[S]():\n    @jax.jit\n    def f(x, n: S):\n"
        "        TRACES.append(n if isinstance(n, int) else 'traced')\n        return x * n\n"
        "    return f\n\n\nf = make()\n"
        "OUT = [f(jnp.ones(2), 3), f(jnp.ones(2), 3), f(jnp.ones(2), 4)]\n"
    ),
}


@needs_312
@pytest.mark.parametrize("case", SHADOWED, ids=list(SHADOWED))
def test_a_type_parameter_shadows_a_module_marker(case: str) -> None:
    source = MARKER_HEAD + "S = Static[int]\n\n\n" + SHADOWED[case]
    assert rewrite_source(source, "m.py") == source  # nothing static: nothing to write
    analysis = jaxrewrite.analyze(source, "m.py", lint=True)
    assert not any(e.state is State.APPLIED for e in analysis.ledger)
    # The module's alias is used by no annotation, and check says so (it is true here).
    alias = _lines(source, "S = Static")[0]
    assert [(d.code, d.line) for d in analysis.diagnostics] == [("JR008", alias)]
    assert _run(source) == _run(HAND_TRACED) == ([[3.0, 3.0], [3.0, 3.0], [4.0, 4.0]], ["traced"])


@needs_312
def test_a_generic_method_still_sees_its_class_body() -> None:
    """An annotation scope directly in a class reads the class's names, as Python's does."""
    source = MARKER_HEAD + (
        "class Box:\n    S = Static[int]\n\n"
        "    @staticmethod\n    @jax.jit\n    def f[T](x, n: S):\n"
        "        TRACES.append(n if isinstance(n, int) else 'traced')\n"
        "        return x * len(range(n)) if isinstance(n, int) else x * n\n\n\n"
        "f = Box.f\nOUT = [f(jnp.ones(2), 3), f(jnp.ones(2), 3), f(jnp.ones(2), 4)]\n"
    )
    _same_as(source, HAND)
