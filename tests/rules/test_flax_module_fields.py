"""Static on a field of an NNX or Linen Module does nothing, and ``check`` and the import say so
(issue 52 item 9): NNX keeps the attributes that are not arrays or Variables in the graph
definition (static already, never traced); a Linen Module's fields are dataclass attributes, not
pytree leaves, so a transform of its apply traces only the variables and its arguments. JR008
says which, with the real flax: the module with the markers runs as the same module without
them (results and traces), each field used where JAX needs a Python value (``jnp.ones(n)``).
"""

from __future__ import annotations

import textwrap

import pytest
from golden_cases import execute

from jaxrewrite import rewrite_source
from jaxrewrite.engine.findings import analyze, lint_analysis

pytest.importorskip("flax", minversion="0.10.1")
try:
    from flax import nnx  # noqa: F401 - only whether it imports
except ImportError as err:  # flax 0.10.4 beside jax 0.4.30, say: a pair its metadata allows
    pytest.skip(f"flax.nnx does not import: {err}", allow_module_level=True)

SOURCE = textwrap.dedent(
    """\
    # jaxrewrite: enable
    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    from flax import nnx
    from flax.nnx import Module as NnxModule
    from jaxrewrite import Static

    TRACES = []


    class Block(nnx.Module):
        n: Static[int]

        def __init__(self, n: int):
            self.n = n
            self.m: Static[int] = n + 1


    class Base(NnxModule):
        pass


    class Deeper(Base):
        k: Static[int] = 2

        def __init__(self):
            pass


    class Dense(nn.Module):
        features: Static[int]
        depth: Static[int] = 2

        @nn.compact
        def __call__(self, x):
            TRACES.append(("linen", self.features))
            return nn.Dense(self.features)(x) * jnp.ones(self.depth).sum()


    @nnx.jit
    def run(block, x):
        TRACES.append(("nnx", block.n, block.m))
        return x * jnp.ones(block.m).sum()


    def main():
        x = jnp.ones((1, 3))
        model = Dense(features=4)
        variables = model.init(jax.random.key(0), x)
        apply = jax.jit(model.apply)
        out = [float(run(Block(3), 1.0)), float(run(Block(3), 1.0)), float(run(Block(4), 1.0))]
        out += [apply(variables, x).shape, apply(variables, x).shape, Deeper().k]
        return out, TRACES
    """
)

EXPECTED = [
    (13, "Static on attribute 'Block.n' of an NNX Module does nothing: NNX treats"),
    (17, "Static on attribute 'Block.m' of an NNX Module does nothing"),  # in __init__
    (25, "Static on attribute 'Deeper.k' of an NNX Module does nothing"),
    (
        32,
        "Static on field 'Dense.features' of a Linen Module does nothing: a Linen Module's fields",
    ),
    (33, "Static on field 'Dense.depth' of a Linen Module does nothing"),
]


def _said(diagnostics: list) -> list[tuple[int, str]]:
    return [(d.line, d.message) for d in diagnostics if d.code == "JR008"]


def test_check_and_the_import_say_static_on_a_flax_module_field_does_nothing() -> None:
    checked = _said(lint_analysis(SOURCE, "m.py").diagnostics)
    assert [
        (line, text[: len(want)]) for (line, text), (_, want) in zip(checked, EXPECTED)
    ] == EXPECTED, checked
    assert len(checked) == len(EXPECTED)
    assert _said(analyze(SOURCE, "m.py", report=True).diagnostics) == checked


def test_the_marked_module_runs_as_the_same_module_without_markers() -> None:
    """The fields were static already: same results, the same traces (one per value of
    ``Block.n``; one of Dense under jit, with its fields as Python ints)."""
    marked = execute(
        rewrite_source(SOURCE, "flax_fields_marked.py"),
        "flax_fields_marked.py",
        "flax_fields_marked",
    )
    plain_text = SOURCE.replace("# jaxrewrite: enable\n", "").replace("Static[int]", "int")
    plain = execute(plain_text, "flax_fields_plain.py", "flax_fields_plain", rewritten=False)
    assert (
        marked.main()
        == plain.main()
        == (
            [4.0, 4.0, 5.0, (1, 4), (1, 4), 2],
            [
                ("linen", 4),
                ("nnx", 3, 4),
                ("nnx", 4, 5),
                ("linen", 4),
            ],  # init, then one trace under jit
        )
    )


OTHERS = {
    # An Equinox Module's Static field is applied (eqx.field(static=True)): nothing to say.
    "equinox": "import equinox as eqx\n\n\nclass C(eqx.Module):\n    n: Static[int] = 2\n",
    # A plain dataclass's does nothing for its own reason (no registration reads it).
    "dataclass": (
        "import dataclasses\n\n\n@dataclasses.dataclass(frozen=True)\nclass C:\n"
        "    n: Static[int] = 2\n"
    ),
    # A class named Module that is not Flax's.
    "own_module": "class Module:\n    pass\n\n\nclass C(Module):\n    n: Static[int] = 2\n",
}


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_other_classes_keep_their_own_words(name: str) -> None:
    if name == "equinox":
        pytest.importorskip("equinox")
    text = "# jaxrewrite: enable\nfrom jaxrewrite import Static\n" + OTHERS[name]
    said = _said(lint_analysis(text, "m.py").diagnostics)
    assert all(
        "Flax" not in message and "NNX" not in message and "Linen" not in message
        for _, message in said
    )
    assert bool(said) == (name != "equinox"), said
