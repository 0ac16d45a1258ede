"""Execution tests: what the rewritten code means when it runs, through every entry point.

A static argument is one that can drive Python control flow (``range(n)``) and does not
retrace when repeated; each test counts traces instead of just calling things. These run
on the floor JAX (0.4.30) too, from .ci/run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest
from golden_cases import ROOT, execute
from support import child_env

import jaxrewrite
from jaxrewrite import RewriteError, rewrite_source


def _env(devices: int | None = None) -> dict[str, str]:
    if devices is None:
        return child_env()
    return child_env(XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}")


def _module(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def _run(source: str, name: str) -> object:
    return execute(rewrite_source(source, f"{name}.py"), f"{name}.py", name)


SEED = """\
# jaxrewrite: enable
from typing import Callable

import jax
import jax.numpy as jnp
from jax import pmap
from jaxrewrite import Static

SEEN = []


def make_hypercube(a, b, c: float, c_func: Static[Callable[[float], float]]):
    SEEN.append(c_func)
    arr = jnp.zeros((3, 3))
    arr += a
    arr *= b
    arr **= c_func(c)
    return arr


pmake_hypercube = pmap(make_hypercube, in_axes=(0, 0, None, None))


def double(c):
    return c * 2


if __name__ == "__main__":
    n = jax.local_device_count()
    out = pmake_hypercube(jnp.arange(1.0, n + 1), jnp.ones(n), 1.0, double)
    pmake_hypercube(jnp.arange(1.0, n + 1), jnp.ones(n), 1.0, double)
    assert SEEN == [double], SEEN  # the Python function itself, traced once
    print(n, out.shape, float(out[1, 0, 0]))
"""


def test_seed_pmap_call_site_on_four_cpu_devices(tmp_path: Path) -> None:
    """The seed's headline: pmap with in_axes=(0, 0, None, None) and no argnums by hand."""
    script = _module(tmp_path, "seed", SEED)
    done = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", str(script)],
        capture_output=True,
        text=True,
        env=_env(4),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["4", "(4,", "3,", "3)", "4.0"]


def test_seed_pmap_fails_without_the_rewrite(tmp_path: Path) -> None:
    script = _module(tmp_path, "seed", SEED)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=_env(4), timeout=300
    )
    assert done.returncode != 0


def test_seed_example_script_runs_through_the_runner() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", str(ROOT / "examples" / "hypercube.py")],
        capture_output=True,
        text=True,
        env=_env(4),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "c_func is static" in done.stdout


def test_import_hook_rewrites_a_package_module_under_wrappers(tmp_path: Path) -> None:
    pkg = tmp_path / "hookpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    _module(
        pkg,
        "model",
        """\
        # jaxrewrite: enable
        import jax
        from jaxrewrite import Static

        TRACES = []


        def no_wraps(func):
            def wrapper(*args, **kwargs):
                return func(*args, **kwargs)
            return wrapper


        @jax.jit
        @no_wraps
        def f(x, n: Static[int]):
            TRACES.append(n)
            for _ in range(n):
                x = x + 1
            return x
        """,
    )
    sys.path.insert(0, str(tmp_path))
    try:
        with jaxrewrite.install(packages=["hookpkg"]):
            from hookpkg import model  # type: ignore[import-not-found]
        assert int(model.f(0, 3)) == 3
        assert int(model.f(1, 3)) == 4
        assert int(model.f(0, n=2)) == 2
        assert model.TRACES == [3, 2]
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "hookpkg" or m.startswith("hookpkg.")]:
            del sys.modules[name]


def test_rewrite_error_surfaces_at_import_with_its_location(tmp_path: Path) -> None:
    _module(
        tmp_path,
        "broken_static",
        """\
        # jaxrewrite: enable
        import jax
        from jaxrewrite import Static


        @jax.jit
        def f(x, *rest: Static[int]):
            return x
        """,
    )
    sys.path.insert(0, str(tmp_path))
    try:
        with jaxrewrite.install(packages=["broken_static"]):
            with pytest.raises(RewriteError) as info:
                __import__("broken_static")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("broken_static", None)
    err = info.value
    assert err.filename == str(tmp_path / "broken_static.py")
    assert (err.lineno, err.offset) == (7, 11)
    assert isinstance(err, SyntaxError)


KINDS = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

TRACES = []


@jax.jit
def f(p: Static[int], /, x, r: Static[int], *, k: Static[int]):
    TRACES.append((p, r, k))
    total = x
    for _ in range(p + r + k):
        total = total + 1
    return total
"""


@pytest.mark.parametrize(
    "call",
    [
        lambda f: f(1, 0, 2, k=3),
        lambda f: f(1, 0, r=2, k=3),
        lambda f: f(1, x=0, r=2, k=3),
    ],
    ids=["positional", "r-by-keyword", "all-keywords"],
)
def test_every_parameter_kind_is_static_however_it_is_passed(call: object) -> None:
    module = _run(KINDS, "kinds_mod")
    f = module.f  # type: ignore[attr-defined]
    assert int(call(f)) == 6  # type: ignore[operator]
    assert int(call(f)) == 6  # type: ignore[operator]
    assert module.TRACES == [(1, 2, 3)]  # type: ignore[attr-defined]


def test_static_values_are_python_values_not_tracers() -> None:
    module = _run(
        """\
        # jaxrewrite: enable
        import jax
        from jaxrewrite import Static

        SEEN = []


        @jax.jit
        def f(x, table: Static[tuple], key: Static[str]):
            SEEN.append((type(table), type(key)))
            return x * table[("a", "b").index(key)]
        """.replace("\n        ", "\n").lstrip(),
        "values_mod",
    )
    assert float(module.f(2.0, (3, 4), "b")) == 8.0  # type: ignore[attr-defined]
    assert module.SEEN == [(tuple, str)]  # type: ignore[attr-defined]


ALIAS_IN_A_BODY = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

TRACES = []


def f(x, n: Static[int]):
    TRACES.append(n)
    for _ in range(n):  # a tracer here would fail: n must reach f as a Python int
        x = x + 1
    return x


def build():
    g = f
    return jax.jit(g)


def build_twice():
    g = f
    h = g
    return jax.vmap(h)
{padding}"""

#: Long helper bodies, so that the hook reads the module's skeleton (hook/fast/skeleton.py).
_HELPER = '''

def helper_{i}(x):
    """A helper whose body the analysis never walks; long enough to be left out of the skeleton."""
    y = x
    for k in range(3):
        y = y * 2 + k - {i}
        y = y / 3 + k * {i}
    return y
'''


@pytest.mark.parametrize("helpers", [0, 40], ids=["small", "large"])
def test_an_alias_made_in_a_function_body_is_rewritten(helpers: int) -> None:
    """``g = f`` in a body with no other candidate line: the call-site search found no reason to
    walk that body, so ``g`` was never known as ``f`` and ``jax.jit(g)`` went unrewritten (its
    Static ``n`` traced), while ``check``'s exhaustive reading rewrote it. Through the hook's own
    pipeline, in a small module and in a large one."""
    import jax.numpy as jnp

    from jaxrewrite import notrewritten
    from jaxrewrite.hook.pycfile import compile_source

    text = ALIAS_IN_A_BODY.format(padding="".join(_HELPER.format(i=i) for i in range(helpers)))
    name = f"alias_body_{helpers}"
    code = compile_source(text.encode(), f"{name}.py")
    module = types.ModuleType(name)
    module.__file__ = f"{name}.py"
    notrewritten.REWRITTEN.add(module.__file__)  # as the hook marks what it compiled
    exec(code, module.__dict__)
    import jax

    hand_traces: list[int] = []

    def by_hand(
        x: float, n: int
    ) -> float:  # the truth: the same function, its static written by hand
        hand_traces.append(n)
        for _ in range(n):
            x = x + 1
        return x

    hand = jax.jit(by_hand, static_argnums=(1,), static_argnames=("n",))
    jitted = module.build()  # type: ignore[attr-defined]
    for x, n in ((1.0, 3), (2.0, 3), (1.0, 4)):
        assert float(jitted(x, n)) == float(hand(x, n)) == x + n
    assert module.TRACES == hand_traces == [3, 4]  # type: ignore[attr-defined]
    mapped = module.build_twice()  # type: ignore[attr-defined]
    assert mapped(jnp.zeros(2), 2).tolist() == [2.0, 2.0]
    assert module.TRACES[-1] == 2  # type: ignore[attr-defined]
