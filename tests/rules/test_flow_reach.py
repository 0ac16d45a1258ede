"""JR006 on the classes issue 55 names, each with its neighbours, every program labelled by
running JAX: a finding exactly where JAX raises (the round3 corpus holds the reports themselves).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from flow_support import program_rejects as jax_rejects

from jaxrewrite.engine.findings import trace_findings

HEAD = "import equinox as eqx\nimport jax\nimport jax.numpy as jnp\nimport numpy as np\n"

CASES = {
    # a tuple's parts keep their own states: unpacked, indexed, or returned by a helper
    "unpack_literal_shape": (
        """
        @jax.jit
        def f(x):
            t, n = x * 2, x.shape[0]
            return t.sum() + jax.lax.scan(lambda c, _: (c + 1, None), 0, None, length=n)[0]
        def main():
            return f(jnp.arange(8.0))
        """,
        False,
    ),
    "unpack_helper_shape": (
        """
        def pair(x):
            return x * 2, x.shape[0]
        @jax.jit
        def f(x):
            t, n = pair(x)
            return t.sum() + jax.lax.scan(lambda c, _: (c + 1, None), 0, None, length=n)[0]
        def main():
            return f(jnp.arange(8.0))
        """,
        False,
    ),
    "index_helper_shape": (
        """
        def pair(x):
            return x * 2, x.shape[0]
        @jax.jit
        def f(x):
            return jax.lax.scan(lambda c, _: (c + 1, None), 0, None, length=pair(x)[1])[0]
        def main():
            return f(jnp.arange(8.0))
        """,
        False,
    ),
    "unpack_helper_traced_part": (
        """
        def pair(x):
            return x.shape[0], x.sum()
        @jax.jit
        def f(x):
            n, m = pair(x)
            return jax.lax.scan(lambda c, _: (c + 1, None), 0, None, length=m)[0]
        def main():
            return f(jnp.arange(8.0))
        """,
        True,
    ),
    "unpack_literal_traced_part": (
        """
        @jax.jit
        def f(x):
            n, m = x.shape[0], x.sum()
            return jnp.zeros(m) + n
        def main():
            return f(jnp.arange(8.0))
        """,
        True,
    ),
    # a library parameter needed as a Python value only without a keyword that lifts the need
    "delete_unique_vmapped": (
        """
        def main():
            x = jnp.arange(6.0)
            def drop(i):
                return jnp.delete(x, i, axis=0, assume_unique_indices=True)
            return jax.vmap(drop)(jnp.array([0, 1]))
        """,
        False,
    ),
    "delete_vmapped": (
        """
        def main():
            x = jnp.arange(6.0)
            def drop(i):
                return jnp.delete(x, i, axis=0)
            return jax.vmap(drop)(jnp.array([0, 1]))
        """,
        True,
    ),
    # a library function given to the transform itself
    "segment_sum_named": (
        """
        def main():
            g = jax.jit(jax.ops.segment_sum)
            return g(jnp.ones((3, 2)), jnp.array([0, 0, 1]), num_segments=2)
        """,
        True,
    ),
    "segment_sum_static": (
        """
        def main():
            g = jax.jit(jax.ops.segment_sum, static_argnames=("num_segments",))
            return g(jnp.ones((3, 2)), jnp.array([0, 0, 1]), num_segments=2)
        """,
        False,
    ),
    "integer_pow_jaxpr": (
        """
        def main():
            return jax.make_jaxpr(jax.lax.integer_pow)(jnp.ones(2), 2)
        """,
        True,
    ),
    "norm_positional_static": (
        """
        def main():
            return jax.jit(jnp.linalg.norm, static_argnums=1)(jnp.ones(2), 1)
        """,
        False,
    ),
    "sum_axis_none": (
        """
        def main():
            return jax.jit(jnp.sum)(jnp.ones(2), None)
        """,
        False,
    ),
    # types JAX cannot trace: Linen modules, Equinox modules holding functions, under grad too
    "mlp_grad": (
        """
        def loss(model, x):
            return jnp.sum(model(x))
        def main():
            mlp = eqx.nn.MLP(2, 1, 4, 1, key=jax.random.PRNGKey(0))
            return jax.grad(loss)(mlp, jnp.ones(2))
        """,
        True,
    ),
    "mlp_grad_other_argument": (
        """
        def loss(model, x):
            return jnp.sum(model(x))
        def main():
            mlp = eqx.nn.MLP(2, 1, 4, 1, key=jax.random.PRNGKey(0))
            return jax.grad(loss, argnums=1)(mlp, jnp.ones(2))
        """,
        False,
    ),
    "sequential_of_linear": (
        """
        def loss(model, x):
            return jnp.sum(model(x))
        def main():
            model = eqx.nn.Sequential([eqx.nn.Linear(2, 1, key=jax.random.PRNGKey(0))])
            return jax.jit(loss)(model, jnp.ones(2))
        """,
        False,
    ),
    # a library function under vmap (mapped unless in_axes says None); array methods; two
    # traced parameters compared (each a number or an array at the visible call)
    "vmap_one_hot_mapped": (
        """
        def main():
            return jax.vmap(jax.nn.one_hot)(jnp.array([1, 2]), jnp.array([3, 3]))
        """,
        True,
    ),
    "vmap_one_hot_unmapped": (
        """
        def main():
            return jax.vmap(jax.nn.one_hot, in_axes=(0, None))(jnp.array([1, 2]), 3)
        """,
        False,
    ),
    "method_axis_traced": (
        """
        @jax.jit
        def f(x, axis):
            return x.sum(axis)
        def main():
            return f(jnp.ones((2, 2)), 0)
        """,
        True,
    ),
    "method_axis_literal": (
        """
        @jax.jit
        def f(x, axis):
            return x.sum(0) + axis
        def main():
            return f(jnp.ones((2, 2)), 0)
        """,
        False,
    ),
    "compare_two_traced": (
        """
        @jax.jit
        def f(x, limit):
            if x > limit:
                return x
            return -x
        def main():
            return f(2.0, jnp.array(1.0))
        """,
        True,
    ),
    "compare_traced_with_static": (
        """
        from functools import partial
        @partial(jax.jit, static_argnums=1)
        def f(x, limit):
            return jnp.where(x > limit, x, -x)
        def main():
            return f(2.0, 1.0)
        """,
        False,
    ),
    # a jnp value of Python numbers: a tracer under jit, a Python-valued array under vmap alone
    "staged_minimum": (
        """
        from functools import partial
        @partial(jax.jit, static_argnums=0)
        def f(n, x):
            m = jnp.minimum(x.shape[0], n)
            return jnp.arange(m)
        def main():
            return f(3, jnp.ones(5))
        """,
        True,
    ),
    "staged_python_min": (
        """
        from functools import partial
        @partial(jax.jit, static_argnums=0)
        def f(n, x):
            m = min(x.shape[0], n)
            return jnp.arange(m)
        def main():
            return f(3, jnp.ones(5))
        """,
        False,
    ),
    "staged_compile_time_eval": (
        """
        @jax.jit
        def f(x):
            with jax.ensure_compile_time_eval():
                m = jnp.minimum(x.shape[0], 3)
                return x[:m]
        def main():
            return f(jnp.ones(5))
        """,
        False,
    ),
    "staged_under_vmap_only": (
        """
        def f(x):
            m = jnp.minimum(4, 3)
            return x + jnp.arange(m).sum()
        def main():
            return jax.vmap(f)(jnp.ones(5))
        """,
        False,
    ),
    # NumPy asked for an array of a tracer; a chained comparison's truth value
    "numpy_asarray": (
        """
        @jax.jit
        def f(x):
            return jnp.asarray(np.asarray(x) + 1)
        def main():
            return f(jnp.ones(2))
        """,
        True,
    ),
    "numpy_shape": (
        """
        @jax.jit
        def f(x):
            return jnp.zeros(np.shape(x))
        def main():
            return f(jnp.ones(2))
        """,
        False,
    ),
    "chained_comparison": (
        """
        @jax.jit
        def f(x):
            return jnp.where(0 < x < 1, x, 0.0)
        def main():
            return f(0.5)
        """,
        True,
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_a_finding_exactly_where_jax_raises(name: str, tmp_path: Path) -> None:
    body, expected = CASES[name]
    path = tmp_path / f"{name}.py"
    path.write_text(HEAD + textwrap.dedent(body))
    rejects = jax_rejects(path)
    found = bool(trace_findings(path.read_text(), str(path)))
    assert rejects == expected, f"JAX {'rejects' if rejects else 'runs'} {name}"
    assert found == expected
