"""``%load_ext jaxrewrite`` in a real ``IPython.core.interactiveshell.InteractiveShell`` running
cells.

One shell for the module (IPython's shell is a process-wide singleton); every test starts from an
empty namespace with the extension loaded, and what the shell changed in the process
(``sys.modules['__main__']``, the hooks) is put back at the end.
"""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import IPython
import pytest
from IPython.core.interactiveshell import InteractiveShell
from prewarmed import Prewarmed
from traitlets.config import Config

from jaxrewrite.hook import finder
from jaxrewrite.integrations import ipython as extension

IMPORTS = """\
import jax
import jax.numpy as jnp
from functools import partial
from typing import Callable, TypeVar
from jaxrewrite import Static
TRACES = []
"""

#: A static argument that drives ``range(n)``: traced, it would fail; static, one trace per n.
DOUBLER = """\
@jax.jit
def doubler(x, n: Static[int]):
    TRACES.append(n)
    for _ in range(n):
        x = x * 2
    return x
"""


@pytest.fixture(scope="module")
def ipython() -> Iterator[Any]:
    saved = (sys.modules.get("__main__"), sys.excepthook, sys.displayhook)
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    config.InteractiveShell.colors = "nocolor" if IPython.version_info >= (9,) else "NoColor"
    shell = InteractiveShell.instance(config=config)
    try:
        yield shell
    finally:
        extension.unload_ipython_extension(shell)
        InteractiveShell.clear_instance()
        main, sys.excepthook, sys.displayhook = saved
        if main is not None:
            sys.modules["__main__"] = main


@pytest.fixture
def shell(ipython: Any) -> Iterator[Any]:
    """The shell with an empty namespace, the extension loaded, and the imports above run."""
    ipython.reset(new_session=False)
    run(ipython, "%load_ext jaxrewrite")
    run(ipython, IMPORTS)
    yield ipython
    run(ipython, "%unload_ext jaxrewrite")


def run(shell: Any, cell: str) -> Any:
    """Run a cell as a user does (numbered, in history); fail the test if it raised."""
    result = shell.run_cell(cell, store_history=True)
    assert result.success, result.error_before_exec or result.error_in_exec
    return result


def show(shell: Any, cell: str, capsys: pytest.CaptureFixture[str], diff: bool = False) -> str:
    capsys.readouterr()
    run(shell, f"%%jaxrewrite_show{' --diff' if diff else ''}\n{cell}")
    return capsys.readouterr().out


# -- opting in ---------------------------------------------------------------------------------


def test_cells_opt_in_while_loaded_and_statics_do_not_retrace(shell: Any) -> None:
    run(shell, DOUBLER)
    run(shell, "out = [float(doubler(1.0, 3)), float(doubler(2.0, 3))]")
    assert shell.user_ns["out"] == [8.0, 16.0]
    assert shell.user_ns["TRACES"] == [3]  # n is static: same n, no retrace
    run(shell, "more = float(doubler(1.0, 4))")
    assert shell.user_ns["more"] == 16.0 and shell.user_ns["TRACES"] == [3, 4]


def test_unload_stops_it(shell: Any) -> None:
    run(shell, "%unload_ext jaxrewrite")
    assert not any(
        isinstance(getattr(t, "__self__", None), extension.CellRewriter)
        for t in shell.input_transformers_post
    )
    assert "jaxrewrite_show" not in shell.magics_manager.magics["cell"]
    run(shell, DOUBLER)  # defining it works; calling it traces n
    result = shell.run_cell("doubler(1.0, 3)", store_history=True)
    assert isinstance(result.error_in_exec, jax_errors())
    run(shell, "%load_ext jaxrewrite")  # the fixture unloads it again


def jax_errors() -> tuple[type[BaseException], ...]:
    import jax

    return (jax.errors.TracerIntegerConversionError, jax.errors.ConcretizationTypeError, TypeError)


def test_loading_installs_the_import_hook_and_unloading_withdraws_it(shell: Any) -> None:
    assert finder.active().packages == frozenset()  # the user's own files, no package named
    run(shell, "%unload_ext jaxrewrite")
    without = finder.active()  # None, unless something else installed the hook too
    run(shell, "%load_ext jaxrewrite")
    assert finder.active().packages == frozenset()
    run(shell, "%unload_ext jaxrewrite")
    assert finder.active() is without
    run(shell, "%load_ext jaxrewrite")


# -- names resolve against the namespace as it is when the cell runs --------------------------


def test_names_from_earlier_cells_resolve_to_what_is_bound_now(
    shell: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    run(shell, "J = jax.jit\nS = Static[int]\nT = TypeVar('T')\nSG = Static[T]")
    cell = "@J\ndef f(x, n: S, m: SG[int]):\n    return x\n"
    assert show(shell, cell, capsys).splitlines()[0] == (
        "@__import__('functools').partial(J, static_argnums=(1, 2), static_argnames=('n', 'm'))"
    )
    run(shell, cell + "f(1.0, 2, 3)")
    # Rebound: J is no longer jit, S no longer a marker; what they are now counts.
    run(shell, "J = lambda fun: fun")
    assert show(shell, cell, capsys) == cell
    run(shell, "J = jax.jit\nS = int")
    assert "static_argnums=(2,)" in show(shell, cell, capsys)


def test_a_name_the_cell_binds_itself_is_read_from_the_cell(
    shell: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    run(shell, "S = Static[int]")
    cell = "S = int\n\n@jax.jit\ndef f(x, n: S):\n    return x\n"
    assert show(shell, cell, capsys) == cell
    cell = "jit = jax.jit\n\n@jit\ndef g(x, n: Static[int]):\n    return x\n"
    assert "@__import__('functools').partial(jit, static_argnums=(1,)" in show(shell, cell, capsys)


def test_a_partial_alias_from_an_earlier_cell(
    shell: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    run(shell, "fast = partial(jax.jit, static_argnames=('m',), inline=True)")
    cell = "@fast\ndef f(x, n: Static[int], m):\n    return x * n * m\n"
    assert show(shell, cell, capsys).splitlines()[0] == (
        "@__import__('functools').partial(fast, static_argnums=(1, 2), static_argnames=('n', 'm'))"
    )
    run(shell, cell + "out = float(f(1.0, 2, 3))")
    assert shell.user_ns["out"] == 6.0
    run(shell, "donating = partial(jax.jit, donate_argnums=(1,))")
    result = shell.run_cell(
        "@donating\ndef g(x, n: Static[int]):\n    return x\n", store_history=True
    )
    assert getattr(result.error_before_exec, "code", None) == "JR112"


# -- the seed's headline split across cells ---------------------------------------------------


HYPERCUBE = """\
def make_hypercube(a, b, c: float, c_func: Static[Callable[[float], float]]):
    arr = jnp.empty((3, 3))
    arr += a
    arr *= b
    arr **= c_func(c)
    return arr
"""
PMAP = "pmake = jax.pmap(make_hypercube, in_axes=(0, 0, None, None))\n"


def test_a_call_site_in_a_later_cell_of_a_def_from_an_earlier_cell(
    shell: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    run(shell, HYPERCUBE)
    assert show(shell, PMAP, capsys) == (
        "pmake = jax.pmap(make_hypercube, in_axes=(0, 0, None, None), "
        "static_broadcasted_argnums=(3,))\n"
    )
    run(shell, PMAP + "out = pmake(jnp.arange(1.0, 5.0), jnp.ones(4), 1.0, lambda x: 2 * x)")
    assert [float(v) for v in shell.user_ns["out"][:, 0, 0]] == [1.0, 4.0, 9.0, 16.0]
    # jit in a later cell, and a def decorated in its own cell then rebound through a wrapper.
    assert "static_argnums=(3,)" in show(shell, "fast = jax.jit(make_hypercube)\n", capsys)
    run(shell, HYPERCUBE + "make_hypercube = jax.jit(make_hypercube)\n")
    assert "static_broadcasted_argnums=(3,)" in show(shell, PMAP, capsys)


COUNTED = HYPERCUBE.replace(
    "    arr = jnp.empty((3, 3))\n", "    TRACES.append('rewritten')\n    arr = jnp.empty((3, 3))\n"
)
BY_HAND = """\
def by_hand(a, b, c: float, c_func):
    TRACES.append('by hand')
    arr = jnp.empty((3, 3))
    arr += a
    arr *= b
    arr **= c_func(c)
    return arr
"""


def test_a_def_rebound_to_its_jit_in_a_later_cell_keeps_its_statics(
    shell: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 20, item 5: ``make_hypercube = jax.jit(make_hypercube)`` in a cell of its own, then the
    seed's pmap in the next: the statics hold through the rebinding, as the guide says."""
    run(shell, COUNTED)
    assert "static_argnums=(3,)" in show(
        shell, "make_hypercube = jax.jit(make_hypercube)\n", capsys
    )
    run(shell, "make_hypercube = jax.jit(make_hypercube)\n")
    assert show(shell, PMAP, capsys) == (
        "pmake = jax.pmap(make_hypercube, in_axes=(0, 0, None, None), "
        "static_broadcasted_argnums=(3,))\n"
    )
    run(shell, BY_HAND + "by_hand = jax.jit(by_hand, static_argnums=(3,))\n")
    run(
        shell,
        "hand = jax.pmap(by_hand, in_axes=(0, 0, None, None), static_broadcasted_argnums=(3,))\n",
    )
    run(
        shell,
        PMAP + "double = lambda x: 2 * x\nTRACES.clear()\n"
        "out = [pmake(jnp.arange(1.0, 5.0), jnp.ones(4), 1.0, double) for _ in range(2)]\n"
        "want = [hand(jnp.arange(1.0, 5.0), jnp.ones(4), 1.0, double) for _ in range(2)]\n",
    )
    ns = shell.user_ns
    assert (
        [float(v) for v in ns["out"][1][:, 0, 0]]
        == [float(v) for v in ns["want"][1][:, 0, 0]]
        == [1.0, 4.0, 9.0, 16.0]
    )
    assert ns["TRACES"].count("rewritten") == ns["TRACES"].count("by hand") == 1, ns["TRACES"]
    # Another name bound to the jitted def, and a name bound to it again: the stand-in follows.
    run(shell, "fast = make_hypercube\n")
    assert "static_broadcasted_argnums=(3,)" in show(
        shell, PMAP.replace("(make_hypercube", "(fast"), capsys
    )
    # Rebound to something that is not seen through: the statics no longer apply.
    run(shell, "make_hypercube = partial(make_hypercube, 1.0)\n")
    assert show(shell, PMAP, capsys) == PMAP


def test_when_a_later_cell_rebinds_the_name_what_it_means_now_counts(
    shell: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    run(shell, HYPERCUBE)
    run(shell, "def make_hypercube(a, b, c, c_func):\n    return a\n")  # no Static any more
    assert show(shell, PMAP, capsys) == PMAP
    run(shell, HYPERCUBE)
    run(shell, "make_hypercube = lambda a, b, c, c_func: a")
    assert show(shell, PMAP, capsys) == PMAP
    run(shell, HYPERCUBE)
    # Rebound inside the cell itself, before the call site: the cell's own binding wins.
    rebound = "def make_hypercube(a, b, c, c_func):\n    return a\n\n" + PMAP
    assert show(shell, rebound, capsys) == rebound
    # A cell that fails before its def runs keeps the old def's meaning.
    result = shell.run_cell(
        "1 / 0\n" + HYPERCUBE.replace("c_func: Static[Callable[[float], float]]", "c_func")
    )
    assert isinstance(result.error_in_exec, ZeroDivisionError)
    assert "static_broadcasted_argnums=(3,)" in show(shell, PMAP, capsys)


LEAVES = """\
@jax.jit
def fun(dic: Config):
    out = dic["x"]
    for _ in range(dic["steps"]):  # a Python int inside jit
        out = out * 2
    return out
"""


@pytest.mark.parametrize(
    "config",
    [
        "from typing import TypedDict\n\nclass Config(TypedDict):\n    x: jax.Array\n"
        "    steps: Static[int]\n",
        "from typing import TypedDict\n\n"
        "Config = TypedDict('Config', {'x': jax.Array, 'steps': Static[int]})\n",
    ],
    ids=["class", "functional"],
)
def test_per_leaf_statics_of_a_class_from_an_earlier_cell(shell: Any, config: str) -> None:
    run(shell, config)
    run(shell, LEAVES + "out = fun({'x': jnp.ones(2), 'steps': 3}).tolist()")
    assert shell.user_ns["out"] == [8.0, 8.0]
    # A call site in a later cell of a def whose parameter has per-leaf statics splits them too.
    run(shell, LEAVES.replace("@jax.jit\n", ""))
    run(shell, "jitted = jax.jit(fun)\nout = jitted({'x': jnp.ones(2), 'steps': 2}).tolist()")
    assert shell.user_ns["out"] == [4.0, 4.0]
    # Rebound to a class without Static entries: no split any more.
    run(shell, config.replace("Static[int]", "int"))
    assert "static_leaves" not in shell.transform_cell(LEAVES)


# -- same guarantees as modules ---------------------------------------------------------------


def test_line_numbers_never_move_and_tracebacks_point_at_the_cell(shell: Any) -> None:
    cell = "\n".join(
        [
            "@jax.jit",  # 1: rewritten in place
            "def fails(x, n: Static[int]):",  # 2
            "    if n > 2:",  # 3
            "        raise ValueError('n too large')",  # 4
            "    return x",  # 5
            "",  # 6
            "fails(1.0, 3)",  # 7
        ]
    )
    result = shell.run_cell(cell, store_history=True)
    assert isinstance(result.error_in_exec, ValueError)
    frames = [
        f
        for f in traceback.extract_tb(result.error_in_exec.__traceback__)
        if f.name in ("<module>", "fails")
    ]
    assert [(f.name, f.lineno) for f in frames] == [("<module>", 7), ("fails", 4)]
    assert shell.compile.format_code_name(frames[0].filename) == (
        "Cell",
        f"In[{result.execution_count}]",
    )
    transformed = shell.transform_cell(cell)
    assert len(transformed.splitlines()) == len(cell.splitlines())
    assert transformed.splitlines()[1:] == cell.splitlines()[1:]


def test_a_rewrite_error_shows_as_ipython_shows_a_syntax_error(
    shell: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    result = shell.run_cell(
        "x = 1\n@jax.jit\ndef f(x, *sizes: Static[int]):\n    return x\n", store_history=True
    )
    shown = capsys.readouterr().out
    assert result.error_before_exec is not None and result.error_before_exec.lineno == 3
    count = result.execution_count
    assert shown.splitlines()[:4] == [
        f"  Cell In[{count}], line 3",
        "    def f(x, *sizes: Static[int]):",
        "              ^",  # under the parameter's name, as the engine locates it
        "RewriteError: JR101 Static cannot mark *args parameter 'sizes': JAX can only "
        "treat named or positional "
        "parameters as static; write one parameter instead, 'sizes: Static[tuple[int, "
        "...]]', and pass the values "
        "as one tuple",
    ]
    assert "Traceback" not in shown and "jaxrewrite/" not in shown
    # ... the way a plain SyntaxError in a cell is shown.
    shell.run_cell("x = (\n", store_history=True)
    plain = capsys.readouterr().out
    assert re.match(r"  Cell In\[\d+\], line 1\n", plain) and "SyntaxError" in plain


def test_python_syntax_errors_stay_ipythons_to_report(
    shell: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    result = shell.run_cell(
        "@jax.jit\ndef f(x, n: Static[int]:\n    return x\n", store_history=True
    )
    assert type(result.error_before_exec) is SyntaxError
    assert "SyntaxError" in capsys.readouterr().out


def test_ipython_syntax_keeps_working(shell: Any, capsys: pytest.CaptureFixture[str]) -> None:
    run(shell, DOUBLER)
    capsys.readouterr()
    run(
        shell,
        "echoed = !echo hello\n%time timed = float(doubler(1.0, 2))\nimport asyncio\n"
        "await asyncio.sleep(0)",
    )
    assert list(shell.user_ns["echoed"]) == ["hello"] and shell.user_ns["timed"] == 4.0
    run(shell, "doubler?")
    assert "doubler" in capsys.readouterr().out
    # A cell magic's body goes through the rewrite too (%%time compiles it with transform_cell).
    run(
        shell, "%%time\n" + DOUBLER.replace("doubler", "tripler") + "timed = float(tripler(1.0, 1))"
    )
    assert shell.user_ns["timed"] == 2.0
    run(shell, "%who_ls")


def test_cells_without_markers_are_handed_back_untouched(shell: Any) -> None:
    rewriter = next(
        t.__self__ for t in shell.input_transformers_post if getattr(t, "__self__", None)
    )
    lines = ["x = jax.numpy.ones(3)\n", "y = x + 1\n"]
    assert rewriter.transform(lines) is lines


# -- %%jaxrewrite_show ------------------------------------------------------------------------


def test_show_prints_what_the_cell_runs_as_and_runs_nothing(
    shell: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    cell = "ran = True\n%time 1\n\n@jax.jit\ndef f(x, n: Static[int]):\n    return x\n"
    assert show(shell, cell, capsys) == (
        "ran = True\n"
        "get_ipython().run_line_magic('time', '1')\n"
        "\n"
        "@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))\n"
        "def f(x, n: Static[int]):\n"
        "    return x\n"
    )
    assert "ran" not in shell.user_ns
    diff = show(shell, cell, capsys, diff=True)
    assert (
        "-@jax.jit\n+@__import__('functools').partial(jax.jit, static_argnums=(1,), "
        "static_argnames=('n',))\n"
    ) in diff


def test_show_reports_a_rewrite_error_at_the_cells_own_line(
    shell: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    result = shell.run_cell(
        "%%jaxrewrite_show\n@jax.jit\ndef f(x, **kw: Static[int]):\n    return x\n"
    )
    shown = capsys.readouterr().out
    assert result.success  # the magic itself ran
    assert re.search(r"Cell In\[\d+\], line 3\n    def f\(x, \*\*kw: Static\[int\]\):\n", shown)
    assert "RewriteError: JR101 Static cannot mark **kwargs parameter 'kw'" in shown


def test_ipython_ext_option_loads_it_from_the_start(tmp_path: Path, prewarmed: Prewarmed) -> None:
    """``ipython --ext jaxrewrite`` (the guide's notebooks section): a real IPython, in a process of
    its own; the first cell already opts in, and a refusal shows with its code at the cell's
    line."""
    import os
    import subprocess

    from golden_cases import ROOT

    cell = (
        "import jax\nfrom jaxrewrite import Static\nTRACES = []\n\n@jax.jit\n"
        "def f(x, n: Static[int]):\n"
        "    TRACES.append(n)\n    return x * n\n\n"
        "print(f(1.0, 2), f(2.0, 2), f(1.0, 3), len(TRACES))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "IPYTHONDIR": str(tmp_path / "ipython")}

    def ipython(*args: str) -> subprocess.CompletedProcess[str]:
        return prewarmed.run(
            ["-m", "IPython", "--no-banner", "--colors=NoColor", *args], tmp_path, 300, env
        )

    done = ipython("--ext", "jaxrewrite", "-c", cell)
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "2.0 4.0 3.0 2", (
        done.stdout + done.stderr
    )
    plain = ipython(
        "-c", cell
    )  # without the extension n is traced: one trace for n=2 and n=3 alike
    assert plain.stdout.splitlines()[-1] == "2.0 4.0 3.0 1", plain.stdout + plain.stderr
    refused = ipython(
        "--ext",
        "jaxrewrite",
        "-c",
        "import jax\nfrom jaxrewrite import Static\n@jax.jit\ndef g(*n: Static[int]):\n"
        "    return 1\n",
    )
    assert "JR101 Static cannot mark *args parameter 'n'" in refused.stdout + refused.stderr


def test_load_ext_in_the_cell_it_should_rewrite_says_the_rest_runs_as_written(
    tmp_path: Path, prewarmed: Prewarmed
) -> None:
    """``%load_ext jaxrewrite`` inside the one cell of ``ipython -c`` or a ``.ipy`` file: IPython
    transformed the cell before the extension was loaded, so the rest runs as written; a
    NotRewrittenWarning says so at the marked def's line, with the fix (``--ext``). Loaded in a
    cell of its own, or with nothing marked after it, it says nothing."""
    import os

    from golden_cases import ROOT

    body = (
        "import jax\nfrom jaxrewrite import Static\nTRACES = []\n\n@jax.jit\n"
        "def f(x, n: Static[int]):\n"
        "    TRACES.append(n)\n    return x * n\n\nprint(f(1.0, 2), f(1.0, 3), len(TRACES))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "IPYTHONDIR": str(tmp_path / "ipython")}

    def ipython(*args: str) -> str:
        done = prewarmed.run(
            ["-m", "IPython", "--no-banner", "--colors=NoColor", *args], tmp_path, 300, env
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout + done.stderr

    said = ipython("-c", "%load_ext jaxrewrite\n" + body)
    assert (
        "NotRewrittenWarning: jaxrewrite was loaded in the middle of this cell (line 1)" in said
    ), said
    assert "annotations do nothing (line 7)" in said and "--ext jaxrewrite" in said
    (tmp_path / "cells.ipy").write_text("%load_ext jaxrewrite\n" + body)
    said = ipython(str(tmp_path / "cells.ipy"))
    assert "jaxrewrite was loaded in the middle of this cell" in said, said
    quiet = ipython("-c", "%load_ext jaxrewrite\nimport jax\nprint(jax.numpy.ones(2).sum())\n")
    assert "NotRewrittenWarning" not in quiet and "2.0" in quiet, quiet
