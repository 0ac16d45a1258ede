"""What JAX is lives in ``engine/rulebook/table.py`` only (issue 41, item 4).

Every transform, every JAX function that traces its arguments without a spec, the names that
look like transforms and the array types are rows, row fields or constants of the table; the
other modules read them from there. This test reads the package's source and fails on a string
literal outside the table that spells one of those names on its own (``"fori_loop"``,
``"jax.lax.scan"``, ``"jit|vmap"``, ``"jax.Array"``): the sign of a second list. Messages and
docstrings (text with spaces) may name them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from jaxrewrite.engine.rulebook import table

PACKAGE = Path(__file__).resolve().parents[2] / "jaxrewrite"
TABLE = PACKAGE / "engine" / "rulebook" / "table.py"

#: (file relative to the package, literal): spellings that are no list of JAX's functions.
ALLOWED = {
    # the AOT stages of a jitted function (``.lower``/``.trace``/``.eval_shape``), a run-time
    # module that must not import the engine (a warm run imports none of it)
    ("leaves.py", "eval_shape"),
}


def _last(name: str) -> str:
    return name.rpartition(".")[2]


def names() -> frozenset[str]:
    """Every name the table knows as JAX's: rows, traced functions, look-alikes, array types."""
    found = {_last(row.name) for rows in table.FAMILIES.values() for row in rows.values()}
    found |= set(table.CLASS_TRANSFORMS) | set(table.OPAQUE_REGISTRATIONS)
    found |= {_last(name) for name in (*table.TRACES, *table.TRACED_AGAIN, *table.PASSES_THROUGH)}
    found |= {*table.TRANSFORM_LIKE, *table.DECORATOR_LIKE}
    return frozenset(found)


_WORDS = re.compile(r"[\w.|]+")


def offences(
    path: Path, known: frozenset[str], arrays: frozenset[str], root: Path = PACKAGE
) -> list[str]:
    """The literals of one module that spell a JAX name (or a ``|``-list of them) on their own."""
    found = []
    rel = path.relative_to(root).as_posix()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        text = node.value
        if not _WORDS.fullmatch(text) or (rel, text) in ALLOWED:
            continue
        if text in arrays or any(_last(part) in known for part in text.split("|")):
            found.append(f"{rel}:{node.lineno}: {text!r}")
    return sorted(found, key=lambda hit: int(hit.split(":")[1]))


def test_no_module_but_the_table_lists_jax_names() -> None:
    known, arrays = names(), table.ARRAY_TYPES
    found = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != TABLE
        for hit in offences(path, known, arrays)
    ]
    assert found == [], (
        "JAX names spelled outside engine/rulebook/table.py (make them rows or row fields):\n"
        + "\n".join(found)
    )


def test_the_scan_finds_a_second_list(tmp_path: Path) -> None:
    """The check itself: each shape of a second list is caught, a message is not."""
    module = tmp_path / "probe.py"
    module.write_text(
        'LOOPS = {"jax.lax.fori_loop": 1}\n'
        'LIKE = "jit|vmap"\n'
        'ARRAYS = ("jax.Array",)\n'
        'DECORATOR = re.compile("scan")\n'
        'MESSAGE = "a jax.jit of it reads its markers"\n'
        'KEYWORD = "in_shardings"\n'
    )
    found = offences(module, names(), table.ARRAY_TYPES, tmp_path)
    assert [hit.partition(": ")[2] for hit in found] == [
        "'jax.lax.fori_loop'",
        "'jit|vmap'",
        "'jax.Array'",
        "'scan'",
    ]


def test_the_row_fields_that_replaced_name_lists() -> None:
    """JR011's and JR010's transforms, once name sets in the checks' code, are row fields."""
    every = [row for rows in table.FAMILIES.values() for row in rows.values()]
    assert [row.name for row in every if row.maps_keywords] == ["vmap", "nn.vmap"]
    assert [(row.name, row.refuses_kwargs_with) for row in every if row.refuses_kwargs_with] == [
        ("jit", "in_shardings"),
        ("pjit", "in_shardings"),
    ]
