"""examples/hypercube.ipynb, executed by a real Jupyter kernel (ipykernel, driven by nbclient).

The notebook is the seed example split into cells: ``%load_ext jaxrewrite``, the imports, the
definition with its Static parameter, jit calls that count traces, and the seed's pmap call site
in a cell of its own. It must run without an error and print what the README's first command
prints for the module version of the same example.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "examples" / "hypercube.ipynb"


def readme_example_output() -> list[str]:
    """The lines the README promises for examples/hypercube.py (its ``docs-test: example``
    block)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- docs-test: example -->\s*```text\n(.*?)```", text, re.S)
    assert block is not None
    return block.group(1).splitlines()


def kernel_environment() -> dict[str, str]:
    """The kernel's environment: four CPU devices before jax is imported, this checkout
    importable."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def stdout_of(cell: nbformat.NotebookNode) -> str:
    return "".join(
        out.get("text", "") for out in cell.get("outputs", []) if out.get("name") == "stdout"
    )


def test_notebook_runs_in_a_real_kernel(tmp_path: Path) -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=600,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute(env=kernel_environment())  # raises CellExecutionError on any failing cell

    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    errors = [out for cell in code for out in cell.outputs if out.output_type == "error"]
    assert errors == []
    printed = "".join(stdout_of(cell) for cell in code if "%%jaxrewrite_show" not in cell.source)
    assert printed.splitlines() == readme_example_output()

    # The kernel ran the seed's headline cell rewritten: the show cell prints what it ran as.
    (show,) = [cell for cell in code if cell.source.startswith("%%jaxrewrite_show")]
    assert stdout_of(show) == (
        "pmake_hypercube = pmap(make_hypercube, in_axes=(0, 0, None, None), "
        "static_broadcasted_argnums=(3,))\n"
    )


def test_a_rewrite_error_in_a_kernel_shows_as_a_syntax_error(tmp_path: Path) -> None:
    """Through ipykernel too: the cell, the line and a caret, not jaxrewrite's own frames."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "%load_ext jaxrewrite\nimport jax\nfrom jaxrewrite import Static"
        ),
        nbformat.v4.new_code_cell("@jax.jit\ndef f(x, *sizes: Static[int]):\n    return x"),
        nbformat.v4.new_code_cell("print('still running')"),
    ]
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=600,
        allow_errors=True,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute(env=kernel_environment())
    (error,) = nb.cells[1].outputs
    assert (error.output_type, error.ename) == ("error", "RewriteError")
    assert error.evalue.endswith(
        "Static cannot mark *args parameter 'sizes': JAX can only treat named or "
        "positional parameters as static; "
        "write one parameter instead, 'sizes: Static[tuple[int, ...]]', and pass the "
        "values as one tuple"
    )
    shown = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error.traceback))
    assert "Cell In[2], line 2" in shown
    assert "    def f(x, *sizes: Static[int]):\n" in shown and "^" in shown
    assert "Traceback" not in shown and "jaxrewrite/" not in shown
    assert stdout_of(nb.cells[2]) == "still running\n"
