"""``check`` and the import say the same of one module (issue 52 item 8): a helper that hands a
function to ``jax.jit`` with ``*jit_args, **jit_kwargs`` (a real project's ``module_jit``) runs
fine where the function has no marker, so ``check`` says nothing of it; where Static parameters
go through such a helper, ``check`` reports what the import reports (a warning, or a refusal).

Both run for real: the import hook in a child that imports every module and prints what each
said, and ``check --format json`` over the same files.
"""

from __future__ import annotations

import json
from pathlib import Path

from support import jaxrewrite, python, write

HEAD = (
    "# jaxrewrite: enable\nimport jax\nimport jax.numpy as jnp\nfrom jaxrewrite import Static\n\n\n"
)

HELPER = """\
def module_jit(meth, *jit_args, **jit_kwargs):
    def fun(state, *args, **kwargs):
        return meth(state, *args, **kwargs)

    jitted_fn = jax.jit(fun, *jit_args, **jit_kwargs)

    def wrapper(*args, **kwargs):
        return jitted_fn(2.0, *args, **kwargs)

    return wrapper


"""

ONELINE = (
    "def module_jit(fun, *jit_args, **jit_kwargs):\n"
    "    return jax.jit(fun, *jit_args, **jit_kwargs)\n\n\n"
)

#: Module name -> (body, what both must say: None, or (code, line)).
MODULES = {
    # The helper as the project wrote it, and a marker-less function through it: nothing to say.
    "unmarked": (
        HELPER
        + (
            "def scale(state, x):\n    return state * x\n\n\n"
            "RESULT = float(module_jit(scale)(jnp.float32(3.0)))\n"
        ),
        None,
    ),
    # The one-line form, jit keywords through it included.
    "oneline": (
        ONELINE
        + (
            "def scale(x, n):\n    return x * n\n\n\n"
            "RESULT = float(module_jit(scale, static_argnums=1)(jnp.float32(3.0), 2))\n"
        ),
        None,
    ),
    # Static parameters handed to the helper: it is no transform jaxrewrite knows (JR004).
    "marked_through_helper": (
        ONELINE + "def scale(x, n: Static[int]):\n    return x * n\n\n\nfast = module_jit(scale)\n",
        ("JR004", 15),
    ),
    # A marked def given to jit with *args: its statics cannot be merged (JR109), at import too.
    "marked_starred": (
        "def scale(x, n: Static[int]):\n    return x * n\n\n\nARGS = ()\n"
        "fast = jax.jit(scale, *ARGS)\n",
        ("JR109", 12),
    ),
}

CHILD = """\
import importlib, json, sys, warnings
import jaxrewrite
from jaxrewrite import RewriteError, RewriteWarning
jaxrewrite.install()
said = {}
for name in sys.argv[1:]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RewriteWarning)
        try:
            module = importlib.import_module(name)
        except RewriteError as err:
            said[name] = [err.code, err.lineno, None]
            continue
    found = [w for w in caught if issubclass(w.category, RewriteWarning)]
    result = getattr(module, "RESULT", None)
    said[name] = [str(found[0].message).split()[0], found[0].lineno, result] if found else [None, None, result]
print(json.dumps(said))
"""  # noqa: E501


def test_check_and_the_import_agree_on_jit_args_passed_through_a_helper(tmp_path: Path) -> None:
    for name, (body, _) in MODULES.items():
        write(tmp_path / f"{name}.py", HEAD + body)
    write(tmp_path / "child.py", CHILD)
    imported = python("child.py", *MODULES, cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    at_import = json.loads(imported.stdout)
    checked = jaxrewrite(
        "check", "--no-cache", "--format", "json", *(f"{n}.py" for n in MODULES), cwd=tmp_path
    )
    by_check: dict[str, list[tuple[str, int]]] = {name: [] for name in MODULES}
    for d in json.loads(checked.stdout):
        by_check[Path(d["path"]).stem].append((d["code"], d["line"]))
    for name, (_, expected) in MODULES.items():
        code, line, _ = at_import[name]
        assert by_check[name] == ([] if expected is None else [expected]), name
        assert (None if code is None else (code, line)) == expected, (name, at_import[name])
    # What runs, runs as written by hand: 2.0 * 3.0 through the helper, 3.0 * 2 with n static.
    assert at_import["unmarked"][2] == 6.0 and at_import["oneline"][2] == 6.0
