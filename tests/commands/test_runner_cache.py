"""The runner's warm path (issue 23): ``python -m jaxrewrite SCRIPT`` imports no engine module when
the script does not opt in and its opted-in imports come from the cache, and an opted-in script is
served from the hook's hash-checked cache, never for other source text.

Children run with bytecode allowed (no PYTHONDONTWRITEBYTECODE): the cache is what is tested.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import support
from support import child_env, write


def jaxrewrite(*args: str, cwd: Path, **options: Any) -> subprocess.CompletedProcess[str]:
    """``support.jaxrewrite``, forked from the session's prewarmed interpreter where it can be."""
    return support.jaxrewrite(*args, cwd=cwd, prewarmed=support.server(), **options)


MODULE = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static

traces = []


@jax.jit
def scale(x, n: Static[int]):
    traces.append(n)
    return x * n
"""

BODY = """\
import json, sys
import optmod
for n in (2, 2, 3):
    optmod.scale(1.0, n)
engine = sorted(m for m in sys.modules if m == "jaxrewrite.engine" or m.startswith("jaxrewrite.engine."))
print(json.dumps({"traces": optmod.traces, "engine": engine, "value": VALUE}))
"""  # noqa: E501


def run(tmp_path: Path, script: str, *flags: str) -> dict[str, object]:
    done = jaxrewrite(script, cwd=tmp_path, env=child_env(bytecode=True), flags=flags)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_warm_run_of_a_script_without_pragma_imports_no_engine(tmp_path: Path) -> None:
    write(tmp_path / "optmod.py", MODULE)
    write(tmp_path / "script.py", BODY.replace("VALUE", "1"))
    cold = run(tmp_path, "script.py")
    assert cold["traces"] == [2, 3] and cold["engine"]  # the module was rewritten (and cached)
    warm = run(tmp_path, "script.py")
    assert warm == {"traces": [2, 3], "engine": [], "value": 1}


def test_opted_in_script_is_served_from_the_cache_and_only_for_its_own_text(tmp_path: Path) -> None:
    write(tmp_path / "optmod.py", MODULE)
    script = write(tmp_path / "script.py", "# jaxrewrite: enable\n" + BODY.replace("VALUE", "1"))
    assert run(tmp_path, "script.py")["engine"]
    assert run(tmp_path, "script.py") == {"traces": [2, 3], "engine": [], "value": 1}
    cached = sorted(p.name for p in (tmp_path / "__pycache__").glob("script.*.pyc"))
    assert len(cached) == 1 and "opt-jaxrewrite" in cached[0], cached
    # Same size, other text: the cache vouches for its source bytes only.
    script.write_text(script.read_text().replace('"value": 1', '"value": 7'))
    edited = run(tmp_path, "script.py")
    assert edited["value"] == 7 and edited["engine"]  # rewritten again, not served the old code
    assert run(tmp_path, "script.py") == {"traces": [2, 3], "engine": [], "value": 7}
    # Another optimisation level has its own entry.
    assert run(tmp_path, "script.py", "-O")["value"] == 7
    assert len(list((tmp_path / "__pycache__").glob("script.*.pyc"))) == 2


def test_script_with_a_static_from_the_cache_is_really_static(tmp_path: Path) -> None:
    """The cached script's own jitted function keeps its static parameter (one trace per value)."""
    write(tmp_path / "optmod.py", MODULE)
    write(
        tmp_path / "script.py",
        "# jaxrewrite: enable\nimport jax, json\nfrom jaxrewrite import Static\nseen = []\n\n"
        "@jax.jit\ndef f(x, k: Static[int]):\n    seen.append(k)\n    return x + k\n\n"
        "for k in (1, 1, 2):\n    f(0.0, k)\nprint(json.dumps({'traces': seen}))\n",
    )
    for _ in range(2):
        done = jaxrewrite("script.py", cwd=tmp_path, env=child_env(bytecode=True))
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {"traces": [1, 2]}
        assert "NotRewrittenWarning" not in done.stderr
