"""The table of library parameters that must be Python values is JAX's own answer, not a list.

``jaxrewrite/engine/rulebook/concrete_params.json`` is written by ``python
tools/derive_concrete.py``; here every row is probed again against the installed
JAX (a row whose function this JAX lacks is skipped: an older JAX), and one whole module (jax.nn) is
derived again and must give exactly its rows (the full derivation takes minutes: the generator).
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from pathlib import Path

import jax
import pytest

from jaxrewrite.engine.rulebook import concrete_table

_TOOL = Path(__file__).resolve().parents[2] / "tools" / "derive_concrete.py"
_spec = importlib.util.spec_from_file_location("derive_concrete", _TOOL)
assert _spec is not None and _spec.loader is not None
derive_concrete = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(derive_concrete)


def _function(qual: str) -> object | None:
    module_name, _, name = qual.rpartition(".")
    try:
        return getattr(importlib.import_module(module_name), name, None)
    except ImportError:
        return None


def test_rows_are_tracer_failures_of_the_installed_jax() -> None:
    """Each row's sample call fails with the parameter traced (the derivation also proved that it
    runs with every argument a Python value: the failure is the tracer's)."""
    warnings.simplefilter("ignore")
    checked = 0
    for row in concrete_table.rows():
        fn = _function(row["function"])
        if fn is None:
            continue  # an older JAX
        assert derive_concrete.fails_traced(fn, row["sample"], row["param"]), row
        checked += 1
    assert checked >= 0.9 * len(concrete_table.rows())


def test_a_module_derives_to_exactly_its_rows() -> None:
    warnings.simplefilter("ignore")
    module = importlib.import_module("jax.nn")
    derived = {
        (r["function"], r["param"])
        for qual, fn in derive_concrete._functions("jax.nn")
        for r in derive_concrete.derive_function(qual, fn)
    }
    shipped = {
        (r["function"], r["param"])
        for r in concrete_table.rows()
        if r["function"].rpartition(".")[0] == "jax.nn"
    }
    assert derived == shipped, module


def test_the_rows_the_issue_names_are_derived() -> None:
    names = concrete_table.by_function()
    for function, param in [
        ("jax.nn.one_hot", "num_classes"),
        ("jax.numpy.eye", "N"),
        ("jax.numpy.linspace", "num"),
        ("jax.numpy.tile", "reps"),
        ("jax.numpy.split", "indices_or_sections"),
        ("jax.numpy.pad", "pad_width"),
        ("jax.lax.full", "shape"),
        ("jax.numpy.zeros", "shape"),
        ("jax.numpy.sum", "axis"),
    ]:
        if _function(function) is None:
            pytest.skip(f"{function} is not in this JAX")
        assert param in {kw for _, kw in names.get(function, ())}, (function, param)


def test_scan_length_is_derived_from_jax() -> None:
    """lax.scan runs only with a function and a length (no xs): the derivation supplies both,
    and finds the length must be a Python value; the shipped table holds the row."""
    rows = list(derive_concrete.derive_function("jax.lax.scan", jax.lax.scan))
    assert ("length", 3) in {(r["param"], r["position"]) for r in rows}
    assert (3, "length") in concrete_table.by_function()["jax.lax.scan"]
