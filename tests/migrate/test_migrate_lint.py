"""migrate leaves the project's linters as clean as it found them: real ruff (F401 unused imports,
I001 isort's order, default profile) over every golden migrate input, before and after."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from golden_cases import ROOT

from jaxrewrite.migrate import migrate_source

RUFF = shutil.which("ruff")
pytestmark = pytest.mark.skipif(RUFF is None, reason="ruff is not installed (pip install ruff)")
INPUTS = sorted((ROOT / "golden" / "migrate").glob("*.in"))

#: Modules written as isort wants them, each with a spec migrate turns into Static.
CLEAN = {
    "partial_only": (
        "from functools import partial\n\nimport jax\n\n\n"
        "@partial(jax.jit, static_argnums=1)\ndef f(x, n):\n    return x * n\n"
    ),
    "partial_kept": (
        "from functools import partial, reduce\n\nimport jax\n\n\n"
        "@partial(jax.jit, static_argnums=1)\n"
        "def f(x, n):\n    return reduce(max, [x, n])\n\n\ng = partial(f, n=2)\n"
    ),
    "partial_among": (
        "import operator\nfrom functools import partial, reduce\n\nimport jax\n\n\n"
        "@partial(jax.jit, static_argnums=1)\n"
        "def f(x, n):\n    return reduce(operator.add, [x, n])\n"
    ),
    "functools_module": (
        "import functools\n\nimport jax\n\n\n"
        "@functools.partial(jax.jit, static_argnames='n')\ndef f(x, n):\n    return x * n\n"
    ),
    "third_party_froms": (
        "import os\n\nimport jax\nimport numpy as np\nfrom jax import lax\n"
        "from optax import adam\n\nfrom . import local\n\n\n"
        "def f(x, n):\n    return lax.add(x, n) + np.ones(os.cpu_count()) + adam + "
        "local\n\n\nf = jax.jit(f, static_argnums=(1,))\n"
    ),
    "no_trailing_newline": (
        "import jax\n\n\ndef f(x, n):\n    return x * n\n\n\nf = jax.jit(f, static_argnums=1)"
    ),
    "nodiff_and_static": (
        "from functools import partial\n\nimport jax\n\n\n"
        "@partial(jax.custom_vjp, nondiff_argnums=(0,))\ndef f(n, x):\n    return x\n\n\n"
        "def f_fwd(n, x):\n    return x, None\n\n\ndef f_bwd(n, res, g):\n"
        "    return (g,)\n\n\nf.defvjp(f_fwd, f_bwd)\n\n\n"
        "@partial(jax.jit, static_argnums=1)\ndef g(x, n):\n    return x * n\n"
    ),
}


def ruff(folder: Path) -> Counter[tuple[str, str, str]]:
    """(file, code, message) of each F401/I001 finding, line numbers left out (migrate adds
    lines)."""
    done = subprocess.run(
        [
            str(RUFF),
            "check",
            "--isolated",
            "--select",
            "F401,I001",
            "--output-format",
            "json",
            "--no-cache",
            ".",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr
    return Counter(
        (Path(row["filename"]).name, row["code"], row["message"]) for row in json.loads(done.stdout)
    )


def before_and_after(
    tmp_path: Path, modules: dict[str, str]
) -> tuple[Counter[tuple[str, str, str]], Counter[tuple[str, str, str]], int]:
    before, after = tmp_path / "before", tmp_path / "after"
    changed = 0
    for name, text in modules.items():
        result = migrate_source(text, f"{name}.py")
        changed += result.changed
        for folder, body in ((before, text), (after, result.text)):
            folder.mkdir(exist_ok=True)
            (folder / f"{name}.py").write_text(body, encoding="utf-8")
    return ruff(before), ruff(after), changed


def test_no_new_findings_over_the_golden_inputs(tmp_path: Path) -> None:
    modules = {path.stem: path.read_text(encoding="utf-8") for path in INPUTS}
    before, after, changed = before_and_after(tmp_path, modules)
    assert changed >= 8
    assert after - before == Counter(), sorted(after - before)


def test_clean_modules_stay_clean(tmp_path: Path) -> None:
    before, after, changed = before_and_after(tmp_path, CLEAN)
    assert before == Counter(), sorted(before)  # the inputs are what isort and pyflakes want...
    assert changed == len(CLEAN)  # ...every one is migrated...
    assert after == Counter(), sorted(after)  # ...and stays clean


def test_only_what_the_migration_made_unused_is_removed() -> None:
    kept = migrate_source(CLEAN["partial_kept"], "m.py").text
    assert "from functools import partial, reduce\n" in kept  # still used by g = partial(...)
    among = migrate_source(CLEAN["partial_among"], "m.py").text
    assert "from functools import reduce\n" in among and "partial" not in among
    module = migrate_source(CLEAN["functools_module"], "m.py").text
    assert "functools" not in module
    # Already unused before: not migrate's to remove (the user's linter already says so).
    idle = (
        "from functools import partial, wraps\n\nimport jax\n\n\ndef f(x, n):\n    return x\n"
        "\n\nf = jax.jit(f, static_argnums=1)\n"
    )
    assert "from functools import partial, wraps\n" in migrate_source(idle, "m.py").text
    # Shadowed in a function: the name is still mentioned, so the import stays (never guess).
    shadow = CLEAN["partial_only"] + "\n\ndef h(partial):\n    return partial\n"
    assert "from functools import partial\n" in migrate_source(shadow, "m.py").text
    exported = CLEAN["partial_only"] + "\n__all__ = ['f', 'partial']\n"
    assert "from functools import partial\n" in migrate_source(exported, "m.py").text
    # Every other way of naming it keeps it too: a def or class of that name, a global statement.
    for tail in (
        "\n\nclass partial:\n    pass\n",
        "\n\ndef h():\n    global partial\n",
        "\n\nasync def partial():\n    pass\n",
    ):
        named = CLEAN["partial_only"] + tail
        assert "from functools import partial\n" in migrate_source(named, "m.py").text, tail


def test_marker_import_placed_as_isort_wants() -> None:
    text = migrate_source(CLEAN["third_party_froms"], "m.py").text
    assert "from jax import lax\nfrom jaxrewrite import Static\nfrom optax import adam\n" in text
    # No third-party section in the first block (jax is imported further down): a section of its
    # own, after the standard library's and before the local imports.
    import ast

    from jaxrewrite.engine.read.source import Source
    from jaxrewrite.migrate.imports import marker_import_place

    text = "from __future__ import annotations\n\nimport os\n\nfrom . import local\n"
    at, own = marker_import_place(ast.parse(text).body, Source(text, "m.py"))
    assert (text[:at], own) == ("from __future__ import annotations\n\nimport os\n", True)
