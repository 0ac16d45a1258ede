"""Shared helpers for the import-hook and cache tests: a temp project, a fake jax, child processes.

Why child processes: imports, bytecode caches and ``sys.flags`` are per process, and a test that
imports a module in the pytest process itself would hide a stale cache behind ``sys.modules``.
Why a fake jax: a rewritten module only has to *call* ``jax.jit`` for us to see the rewrite, and
the real jax costs 1-2 s per child.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parent

FAKE_JAX = '''\
"""A stand-in for jax: jit records its keywords instead of compiling."""
CALLS = []


def jit(fun, **kwargs):
    CALLS.append([fun.__name__, kwargs])
    return fun
'''

#: An opted-in module; ``{value}`` lets tests make same-size edits.
OPTED_IN = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

DEBUG = __debug__
VALUE = {value}


@jax.jit
def f(x, n: Static[int]):
    return x
"""

#: What the fake jit sees for ``f`` when the module was rewritten; a plain import passes no
#: keywords.
REWRITTEN_CALL = ["f", {"static_argnums": [1], "static_argnames": ["n"]}]
PLAIN_CALL: list[Any] = ["f", {}]


class Project:
    """A temp folder with ``src/`` (the modules under test) and ``fake/`` (the fake jax)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.src = root / "src"
        self.src.mkdir(parents=True, exist_ok=True)
        fake = root / "fake" / "jax"
        fake.mkdir(parents=True, exist_ok=True)
        (fake / "__init__.py").write_text(FAKE_JAX)

    def write(self, relpath: str, text: str) -> Path:
        path = self.src / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        return path

    def env(self, **extra: str | None) -> dict[str, str]:
        """The child's environment: bytecode writing ON (this environment sets it off), no
        prefix."""
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(
                ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONOPTIMIZE")
            )
        }
        env["PYTHONPATH"] = os.pathsep.join(
            str(p) for p in (self.src, self.root / "fake", TESTS, REPO)
        )
        for key, value in extra.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env

    def popen(
        self, code: str, *flags: str, env: dict[str, str] | None = None
    ) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, *flags, "-c", code],
            cwd=self.root,
            env=env or self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def run(
        self, code: str, *flags: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        proc = self.popen(code, *flags, env=env)
        out, err = proc.communicate(timeout=120)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    def child(
        self, module: str, *flags: str, env: dict[str, str] | None = None, **options: Any
    ) -> dict[str, Any]:
        """Import ``module`` in a fresh interpreter via ``child()`` below; returns its report."""
        return report(self.run(child_code(module, **options), *flags, env=env))

    def rewritten_pycs(self, relpath: str = "mod.py") -> list[str]:
        """The hook's cache files for a module under src/ (any rewriter hash, any level)."""
        path = self.src / relpath
        return sorted(
            glob.glob(str(path.parent / "__pycache__" / f"{path.stem}.*.opt-jaxrewrite*.pyc"))
        )


def child_code(module: str, **options: Any) -> str:
    return f"import helpers_hook; helpers_hook.child({module!r}, **{options!r})"


def report(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, f"child failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def child(
    module: str, hook: bool = True, packages: list[str] | None = None, slow: float = 0.0
) -> None:
    """Runs in the child: import ``module`` (through the hook if asked) and print what happened as
    JSON.

    ``compiled`` lists the files the engine compiled: empty means the code came from a cache.
    """
    import importlib
    import time

    import jaxrewrite
    from jaxrewrite.hook import pycfile

    compiled: list[str] = []
    real = pycfile.Pipeline.compile

    def counting(self: Any, data: bytes, path: str, optimize: int, header: Any = None) -> Any:
        compiled.append(path)
        code = real(self, data, path, optimize, header)
        time.sleep(slow)  # lets concurrent children overlap between compiling and writing
        return code

    pycfile.Pipeline.compile = counting  # type: ignore[method-assign]
    if hook:
        jaxrewrite.install(packages)
    mod = importlib.import_module(module)
    import jax

    f = getattr(mod, "f", None)
    print(
        json.dumps(
            {
                "jit": jax.CALLS,
                "compiled": compiled,
                "loader": type(mod.__loader__).__name__,
                "cached": getattr(mod, "__cached__", None),
                "debug": getattr(mod, "DEBUG", None),
                "value": getattr(mod, "VALUE", None),
                "co_filename": f.__code__.co_filename if f is not None else None,
            }
        )
    )
