"""Past ``resolve.MAX_DEPTH`` the engine cannot tell, and says so (JR127).

Alias chains, ``partial`` chains and nested annotations are read to a fixed depth so that a loop
of aliases cannot recurse forever. Before JR127 the readers answered "nothing" there, and that
"nothing" read as "no marker" or "not a transform": a Static parameter behind a long enough
chain was silently traced. Each form below is read exactly up to its last link (rewritten, and
the static argument drives Python control flow without a retrace), and one link further is a
located RewriteError at import time, never the text left as it is.
"""

from __future__ import annotations

import ast

import jax
import jax.numpy as jnp
import pytest
from golden_cases import execute

from jaxrewrite import RewriteError, rewrite_source
from jaxrewrite.engine.findings import analyze
from jaxrewrite.engine.read.resolve import MAX_DEPTH

HEAD = (
    "# jaxrewrite: enable\nimport jax\nfrom functools import partial\n"
    "from jaxrewrite import Static\n"
)
BODY = "    out = x\n    for _ in range(n):\n        out = out + 1\n    return out\n"


def marker_chain(links: int) -> str:
    """``S0 = Static[int]``, then ``links`` plain aliases, the last one annotating ``n``."""
    aliases = "S0 = Static[int]\n" + "".join(f"S{i} = S{i - 1}\n" for i in range(1, links + 1))
    return HEAD + aliases + f"@jax.jit\ndef f(x, n: S{links}):\n" + BODY


def jit_chain(links: int, marked: bool = True) -> str:
    aliases = "j0 = jax.jit\n" + "".join(f"j{i} = j{i - 1}\n" for i in range(1, links + 1))
    return HEAD + aliases + f"@j{links}\ndef f(x, n{': Static[int]' if marked else ''}):\n" + BODY


def call_site_chain(links: int) -> str:
    aliases = "j0 = jax.jit\n" + "".join(f"j{i} = j{i - 1}\n" for i in range(1, links + 1))
    return HEAD + aliases + "def f(x, n: Static[int]):\n" + BODY + f"g = j{links}(f)\n"


def argument_chain(links: int, marked: bool = True) -> str:
    """``a0 = f``, then ``links`` plain aliases, the last one passed to ``jax.jit``."""
    aliases = "a0 = f\n" + "".join(f"a{i} = a{i - 1}\n" for i in range(1, links + 1))
    return (
        HEAD
        + f"def f(x, n{': Static[int]' if marked else ''}):\n"
        + BODY
        + aliases
        + f"g = jax.jit(a{links})\n"
    )


def partial_chain(links: int) -> str:
    aliases = "j0 = partial(jax.jit, donate_argnums=())\n" + "".join(
        f"j{i} = partial(j{i - 1})\n" for i in range(1, links + 1)
    )
    return HEAD + aliases + f"@j{links}\ndef f(x, n: Static[int]):\n" + BODY


#: Each form with the most links the readers follow: one more is JR127. A plain alias is one
#: level of the reader (markers: from the alias read; transforms: from the name's qualname), a
#: ``partial`` link two (the alias, then the call's first argument).
FORMS = {
    "marker alias chain": (marker_chain, MAX_DEPTH - 1),
    "transform alias chain, decorator": (jit_chain, MAX_DEPTH - 2),
    "transform alias chain, call site": (call_site_chain, MAX_DEPTH - 2),
    "partial chain": (partial_chain, MAX_DEPTH // 2 - 1),
    # the def a transform's argument names, through assignments (callsites._function): one
    # level a link, from the argument's own name
    "argument alias chain, call site": (argument_chain, MAX_DEPTH - 1),
}


LEAF_HEAD = HEAD + (
    "from typing import TypedDict\n\n\nclass Cfg(TypedDict):\n    x: jax.Array\n"
    "    n: Static[int]\n\n\n"
)


def leaf_chain(links: int) -> str:
    """A TypedDict with a Static entry, reached through ``links`` plain aliases: per-leaf
    statics."""
    aliases = "A0 = Cfg\n" + "".join(f"A{i} = A{i - 1}\n" for i in range(1, links + 1))
    body = (
        "    TRACES.append(c['n'])\n    out = c['x']\n    for _ in range(c['n']):\n"
        "        out = out + 1\n    return out\n"
    )
    return LEAF_HEAD + "TRACES = []\n" + aliases + f"@jax.jit\ndef f(c: A{links}):\n" + body


def _by_hand(x: jax.Array, n: int) -> jax.Array:
    """``BODY`` written by hand."""
    out = x
    for _ in range(n):
        out = out + 1
    return out


def _last_def_line(text: str, name: str) -> int:
    return next(
        node.lineno
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef) and node.name == name
    )


@pytest.mark.parametrize("form", FORMS)
def test_read_to_the_last_link_and_the_static_argument_is_static(form: str) -> None:
    make, links = FORMS[form]
    text = make(links)
    out = rewrite_source(text, "m.py")
    assert out != text and "static_argnums=(1,)" in out and "static_argnames=('n',)" in out
    module = execute(out, "m.py", "alias_depth_case")
    jitted = module.g if "g = " in text else module.f
    hand = jax.jit(
        lambda x, n: _by_hand(x, n), static_argnums=1
    )  # the truth, in plain JAX (its own cache)
    sizes, hand_sizes = [], []
    for x, n in ((0.0, 3), (1.0, 3), (0.0, 4)):
        got = float(jitted(jnp.float32(x), n))  # n drives range(n): it is static
        assert got == float(hand(jnp.float32(x), n)) == x + n
        sizes.append(jitted._cache_size())
        hand_sizes.append(hand._cache_size())
    assert sizes == hand_sizes == [1, 1, 2], "n=3 twice traces once, n=4 once more"


@pytest.mark.parametrize("form", FORMS)
def test_one_link_further_is_jr127_at_the_use(form: str) -> None:
    make, links = FORMS[form]
    text = make(links + 1)
    with pytest.raises(RewriteError) as caught:
        rewrite_source(text, "m.py")
    err = caught.value
    assert err.code == "JR127" and err.filename == "m.py"  # type: ignore[attr-defined]
    if form == "argument alias chain, call site":
        assert "cannot tell which function" in str(err) and "it may be 'f'" in str(err)
        assert (err.lineno, err.offset) == (len(text.splitlines()), len("g = jax.jit(") + 1)
        return
    assert "cannot tell whether" in str(err)
    if form == "marker alias chain":
        line = _last_def_line(text, "f")
        assert (err.lineno, err.offset) == (
            line,
            text.splitlines()[line - 1].index(f"S{links + 1}") + 1,
        )
    elif form == "transform alias chain, call site":
        assert (err.lineno, err.offset) == (len(text.splitlines()), len("g = ") + 1)
    else:  # the decorator, on the line above the def
        assert (err.lineno, err.offset) == (_last_def_line(text, "f") - 1, 2)


@pytest.mark.parametrize("make", [jit_chain, argument_chain], ids=["transform", "argument"])
def test_an_unmarked_def_behind_a_long_chain_is_left_alone(make) -> None:  # type: ignore[no-untyped-def]
    """Nothing is lost there: no marker depends on the answer, so nothing is refused."""
    text = make(MAX_DEPTH + 8, marked=False)
    assert rewrite_source(text, "m.py") == text


def nested_wrappers(levels: int, assigned: bool) -> str:
    """``jax.jit(w(w(...w(f)...)))``, or the same nest assigned to ``h`` and ``jax.jit(h)``: ``w``
    is a wrapper in view that returns its function (so it passes the arguments through)."""
    nest = "w(" * levels + "f" + ")" * levels
    use = f"h = {nest}\ng = jax.jit(h)\n" if assigned else f"g = jax.jit({nest})\n"
    return HEAD + "def w(fn):\n    return fn\n\ndef f(x, n: Static[int]):\n" + BODY + use


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 4 * MAX_DEPTH])
@pytest.mark.parametrize("assigned", [False, True], ids=["in the call", "assigned"])
def test_nested_wrappers_are_read_to_any_depth(levels: int, assigned: bool) -> None:
    """A nest of transforms and wrappers around the def is read to its end
    (engine.read.wrappers.peel, root_name, made_from), as the guide says: past 32 levels the def
    used to go unseen, the call left as it was with only a lint finding (JR002), and ``n`` silently
    traced."""
    text = nested_wrappers(levels, assigned)
    out = rewrite_source(text, "m.py")
    assert out.count("static_argnums=(1,), static_argnames=('n',)") == 1, out[-300:]
    assert [d.code for d in analyze(text, "m.py", lint=True).diagnostics] == []
    module = execute(out, "m.py", "alias_depth_nest")
    hand = jax.jit(lambda x, n: _by_hand(x, n), static_argnums=1)
    sizes, hand_sizes = [], []
    for x, n in ((0.0, 3), (1.0, 3), (0.0, 4)):
        assert float(module.g(jnp.float32(x), n)) == float(hand(jnp.float32(x), n)) == x + n
        sizes.append(module.g._cache_size())
        hand_sizes.append(hand._cache_size())
    assert sizes == hand_sizes == [1, 1, 2]


def test_an_argument_past_the_depth_is_refused_in_the_ledger_with_no_finding_beside_it() -> None:
    """``check`` on the argument chain: the JR127 alone (no JR008 that the marker does nothing
    under the transforms applied, no JR002 that none applies), and ``f.n`` refused by it."""
    from jaxrewrite.engine.analysis import EntryKind, State

    analysis = analyze(argument_chain(MAX_DEPTH + 8), "m.py", lint=True)
    assert [d.code for d in analysis.diagnostics] == ["JR127"]
    params = [e for e in analysis.ledger if e.kind is EntryKind.PARAMETER]
    assert [(e.name, e.state, e.code) for e in params] == [("f.n", State.REFUSED, "JR127")]


AMBIGUOUS = HEAD + "import sys\n\nif sys.argv:\n    jit = jax.jit\nelse:\n    jit = print\n\n"


@pytest.mark.parametrize(
    "use",
    [
        "@jit\ndef f(x, n: Static[int]):\n" + BODY,
        "def f(x, n: Static[int]):\n" + BODY + "g = jit(f)\n",
        "j = jit\n"
        + "".join(f"j{i} = j{i - 1 if i else ''}\n" for i in range(40))
        + "@j39\ndef f(x, n: Static[int]):\n"
        + BODY,
    ],
    ids=["JR104 decorator", "JR104 call site", "JR127 decorator"],
)
def test_a_use_that_cannot_be_told_is_the_only_finding_on_its_def(use: str) -> None:
    """Where a marked def's transform cannot be told (JR104, JR127), that error says what to do:
    lint used to add JR004 (``jit`` 'is not a transform jaxrewrite knows') or JR002 ('no transform
    applies') beside it, advice that does not fit."""
    codes = {d.code for d in analyze(AMBIGUOUS + use, "m.py", lint=True).diagnostics}
    assert codes in ({"JR104"}, {"JR127"}), codes


def test_a_loop_of_aliases_is_jr127_where_it_read_as_not_a_transform() -> None:
    """``a`` reads through ``b``, bound to jit in one branch and back to ``a`` in the other: the
    name is bound once, so it is not JR104's ambiguity, and the loop used to end in "nothing"."""
    text = HEAD + (
        "if jax.__version__:\n    b = jax.jit\nelse:\n    b = a\na = b\n\n"
        "@a\ndef f(x, n: Static[int]):\n" + BODY
    )
    with pytest.raises(RewriteError) as caught:
        rewrite_source(text, "m.py")
    assert caught.value.code == "JR127"  # type: ignore[attr-defined]


def test_a_marker_nested_deeper_than_the_reader_goes_is_jr127_not_ignored() -> None:
    """``list[list[...Static[int]...]]``: JR102 while the reader reaches the marker, JR127 past it
    (the nested marker is still no marker to JAX: it must not pass silently)."""

    def nested(depth: int) -> str:
        ann = "Static[int]"
        for _ in range(depth):
            ann = f"list[{ann}]"
        return HEAD + f"@jax.jit\ndef f(x, n: {ann}):\n" + BODY

    codes = []
    for depth in (MAX_DEPTH - 1, MAX_DEPTH + 1, 3 * MAX_DEPTH):
        with pytest.raises(RewriteError) as caught:
            rewrite_source(nested(depth), "m.py")
        codes.append(caught.value.code)  # type: ignore[attr-defined]
    assert codes == ["JR102", "JR127", "JR127"]


def test_check_reports_jr127_as_an_error_finding() -> None:
    analysis = analyze(marker_chain(MAX_DEPTH + 8), "m.py", lint=True)
    found = [d for d in analysis.diagnostics if d.code == "JR127"]
    assert len(found) == 1 and found[0].is_error


@pytest.mark.parametrize("filters", ["FAST", "EXHAUSTIVE"])
def test_a_loop_of_plain_type_aliases_is_still_no_marker(filters: str) -> None:
    """The reader stops in the loop (``Tree`` reads ``"Tree"`` again and again), but no name in
    reach spells a marker: no refusal, and the Static beside it is applied as always."""
    from jaxrewrite.engine.read import filters as known

    text = (
        HEAD
        + 'Tree = dict[str, "Tree"]\n\n@jax.jit\ndef f(x, n: Static[int], t: Tree | None = None):\n'
        + BODY
    )
    analysis = analyze(text, "m.py", filters=getattr(known, filters), lint=True)
    assert not [d for d in analysis.diagnostics if d.is_error], analysis.diagnostics
    assert (
        rewrite_source(text, "m.py", filters=getattr(known, filters)).count("static_argnums=(1,)")
        == 1
    )


def test_the_ledger_records_the_refused_marker_and_no_alias_as_unused() -> None:
    """The ledger reads markers with no depth limit (loops end by the aliases being read): the
    parameter behind the chain is an entry refused by JR127, each alias of the chain ends as its
    use does, and no alias is reported as used by nothing (JR008, before: at the link where the
    ledger's own reading stopped)."""
    from jaxrewrite.engine.analysis import EntryKind, State

    links = MAX_DEPTH + 8
    analysis = analyze(marker_chain(links), "m.py", lint=True)
    assert [d.code for d in analysis.diagnostics] == ["JR127"]
    params = [e for e in analysis.ledger if e.kind is EntryKind.PARAMETER]
    assert [(e.name, e.state, e.code) for e in params] == [("f.n", State.REFUSED, "JR127")]
    chain = [e for e in analysis.ledger if e.kind is EntryKind.ALIAS]
    assert len(chain) == links + 1 and {(e.state, e.code) for e in chain} == {
        (State.REFUSED, "JR127")
    }


def test_a_loop_of_marker_aliases_ends_in_the_ledger() -> None:
    """``A`` holds ``Static`` and reads ``B`` inside a string, ``B`` is ``A``: the ledger's reading
    ends (each alias read once on its way) and finds the marker both spell."""
    from jaxrewrite.engine.analysis import EntryKind

    text = HEAD + 'A = Static["B"]\nB = A\n\n@jax.jit\ndef f(x, n: B):\n' + BODY
    analysis = analyze(text, "m.py", lint=True)
    entries = {(e.kind, e.name): e for e in analysis.ledger}
    assert (EntryKind.PARAMETER, "f.n") in entries and (EntryKind.ALIAS, "A") in entries, (
        analysis.ledger
    )


def _ledger_reads(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """How many expressions ``check``'s ledger reads (``MarkIndex.mentions`` calls), and how many
    nodes the module has."""
    from jaxrewrite.engine.read import markers

    calls = 0
    real = markers.MarkIndex.mentions

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(markers.MarkIndex, "mentions", counted)
    analyze(text, "m.py", lint=True)
    return calls, sum(1 for _ in ast.walk(ast.parse(text)))


@pytest.mark.parametrize(
    "aliases",
    [
        "".join(f"x{i} = x{i - 1} + 1\n" for i in range(1, 300)),  # a chain, read top down
        # bottom up: each link read inside the one before (past ~250 links that recursion
        # takes engine/read/depth.py's second attempt, which reads everything once more)
        "".join(f"y{i} = y{i + 1} + 1\n" for i in range(149)) + "y149 = 1\n",
        "".join(f"x{i} = (x{i - 1}, x{i - 1})\n" for i in range(1, 20)),  # 2**19 paths
        "if jax:\n" + "".join(f"    x{i} = x{(i + 1) % 300}\n" for i in range(300)),  # one loop
    ],
    ids=["chain", "chain bottom up", "diamonds", "loop"],
)
def test_the_ledger_reads_each_alias_once(aliases: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """At most one read per node of the module, whatever the shape of its aliases. Before, each
    use read its chain again (to 32 links: 6-8 reads a node) and diamonds took every path (20
    levels: 2.2 million reads for 220 nodes; 60 levels took ``check`` 30 s)."""
    text = HEAD + "x0 = 1\n" + aliases + "\n@jax.jit\ndef f(x, n: Static[int]):\n" + BODY
    calls, nodes = _ledger_reads(text, monkeypatch)
    assert calls <= nodes, (calls, nodes)


def test_a_per_leaf_class_read_to_the_last_link_and_one_link_further_is_jr127() -> None:
    """The TypedDict's Static entry ``n`` drives ``range`` through 31 aliases (split per call, no
    retrace for the same ``n``); one alias more used to leave the text as it was, the entry
    silently traced."""
    last = MAX_DEPTH - 1
    module = execute(rewrite_source(leaf_chain(last), "m.py"), "m.py", "alias_depth_leaf")
    traces: list[int] = []

    def by_hand(
        x: jax.Array, n: int
    ) -> jax.Array:  # the truth: the entry passed as a static argument
        traces.append(n)
        return _by_hand(x, n)

    hand = jax.jit(by_hand, static_argnums=1)
    for x, n in ((0.0, 3), (1.0, 3), (0.0, 4)):
        assert (
            float(module.f({"x": jnp.float32(x), "n": n}))
            == float(hand(jnp.float32(x), n))
            == x + n
        )
    assert module.TRACES == traces == [3, 4], "n=3 twice traces once (a static int), n=4 once more"
    text = leaf_chain(last + 1)
    with pytest.raises(RewriteError) as caught:
        rewrite_source(text, "m.py")
    err = caught.value
    line = _last_def_line(text, "f")
    assert (err.code, err.lineno, err.offset) == (
        "JR127",
        line,
        text.splitlines()[line - 1].index("A") + 1,
    )  # type: ignore[attr-defined]


def test_a_loop_of_aliases_that_reaches_no_per_leaf_class_is_quiet() -> None:
    text = (
        LEAF_HEAD
        + (
            "if jax:\n    B = C\nelse:\n    C = B\n\n@jax.jit\n"
            "def f(x, n: Static[int], b: B = None):\n"
        )
        + BODY
    )
    assert "static_argnums=(1,)" in rewrite_source(text, "m.py")


def test_an_entry_reaching_a_per_leaf_class_past_the_depth_is_jr127_at_the_entry() -> None:
    """``Outer``'s entry ``inner`` names ``Cfg`` through 40 aliases: the nested split cannot be
    read, and says so where the entry is."""
    aliases = "A0 = Cfg\n" + "".join(f"A{i} = A{i - 1}\n" for i in range(1, 41))
    text = (
        LEAF_HEAD
        + aliases
        + (
            "class Outer(TypedDict):\n    inner: A40\n    k: Static[int]\n\n"
            "@jax.jit\ndef f(o: Outer):\n    return o['inner']['x'] * o['k']\n"
        )
    )
    with pytest.raises(RewriteError) as caught:
        rewrite_source(text, "m.py")
    assert caught.value.code == "JR127"  # type: ignore[attr-defined]
    assert caught.value.lineno == text.splitlines().index("    inner: A40") + 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("levels, codes", [(8, ["JR004"]), (MAX_DEPTH + 8, ["JR127"])])
def test_an_unknown_transform_under_a_nest_of_partials(levels: int, codes: list[str]) -> None:
    """``partial(partial(...(my_jit)...))``: a transform jaxrewrite does not know (JR004) while
    the readers reach ``my_jit``; past them, JR127 alone (not JR004 beside it)."""
    nest = "partial(" * levels + "my_jit" + ")" * levels
    text = HEAD + f"from somewhere import my_jit\n\n@{nest}\ndef f(x, n: Static[int]):\n" + BODY
    assert [d.code for d in analyze(text, "m.py", lint=True).diagnostics] == codes


def _bounded(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, limit: int) -> list[int]:
    """Count the calls of ``owner.name``, and fail past ``limit`` (rather than run for hours)."""
    real = getattr(owner, name)
    calls = [0]

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls[0] += 1
        if calls[0] > limit:
            raise AssertionError(
                f"{name} called more than {limit} times: a reading that branches at every link"
            )
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


#: A name bound three ways in one scope, two of them aliases of itself: each link branches in
#: two, so reading to MAX_DEPTH took 2**32 steps (the import of this module never ended).
SELF_ALIASES = (
    HEAD
    + "\n\ndef f(x, n: Static[int]):\n"
    + BODY
    + """

def build():
    g = g
    from jax import jit as g
    g = g
    return g(f)
"""
)

#: An annotation alias that names itself twice (``C = C[C]``, shadowing a marker alias of the
#: module, so it is read): three branches a level, 3**32 readings in the import hook.
SELF_SUBSCRIPT = (
    HEAD
    + """
C = Static


def outer():
    C = C[C]

    @jax.jit
    def u(x, n: C):
        return x

    return u
"""
)


@pytest.mark.parametrize("filters", ["FAST", "EXHAUSTIVE"])
def test_a_name_bound_as_an_alias_of_itself_twice_is_read_once_a_depth(
    filters: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jaxrewrite.engine.read import filters as all_filters
    from jaxrewrite.engine.read import resolve

    calls = _bounded(monkeypatch, resolve, "_name_qualname", 4 * (MAX_DEPTH + 2))
    analyze(
        SELF_ALIASES, "m.py", filters=getattr(all_filters, filters), lint=filters == "EXHAUSTIVE"
    )
    assert calls[0] > 0


@pytest.mark.parametrize("filters", ["FAST", "EXHAUSTIVE"])
def test_an_annotation_alias_naming_itself_twice_is_read_once_a_depth(
    filters: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each (node, scope, depth) once: the reading ends, with the answer it gave before (no marker
    in reach of the local ``C``: nothing to rewrite, and the unused module alias reported)."""
    from jaxrewrite.engine.read import filters as all_filters
    from jaxrewrite.engine.read.markers import MarkerReader

    calls = _bounded(monkeypatch, MarkerReader, "_subscript", 4 * (MAX_DEPTH + 2))
    found = analyze(
        SELF_SUBSCRIPT, "m.py", filters=getattr(all_filters, filters), lint=filters == "EXHAUSTIVE"
    )
    assert calls[0] > 0
    assert not found.uses or not any(use.needs_edit for use in found.uses)
