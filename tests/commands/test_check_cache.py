"""``check``'s cache (issue 45 item 4): a second run reads the findings back, and never serves them
for other bytes, another jaxrewrite version, other options, or a module it followed that changed
(or that appeared where the import found none); two runs at once; ``--no-cache``; the folder's
tag files; ``cache-dir``."""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from golden_cases import GOLDEN
from support import child_env, jaxrewrite, write

from jaxrewrite.commands import check
from jaxrewrite.commands.check import Cache, open_cache
from jaxrewrite.config import Config

HELPER = (GOLDEN / "check" / "jr002_helper.py").read_text(encoding="utf-8")
MYMOD = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static


def f(x, n: Static[int]):
    for _ in range(n):
        x = x + 1
    return x
"""
MAIN = "import jax\nfrom mymod import f\n\nh = jax.jit(f)\n"


#: The default options (frozen), for the helpers' defaults.
DEFAULTS = Config()


def _cache(tmp_path: Path, options: Config = DEFAULTS) -> Cache:
    return open_cache(str(tmp_path / ".jaxrewrite_cache"), options)


def check_path(path: str, options: Config, cache: Cache | None = None) -> list[Any]:
    outcome = check.examine(path, False, options, cache=cache)
    assert outcome is not None and outcome[1] is None
    return outcome[0]


def _codes(path: Path, cache: Cache, options: Config = DEFAULTS) -> list[str]:
    return [d.code for d in check_path(str(path), options, cache=cache)]


@pytest.fixture
def analyses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files check analyzed (not served from the cache)."""
    seen: list[str] = []
    real = check.check_text

    def spy(text: str, filename: str, *args: object, **kwargs: object) -> object:
        seen.append(os.path.basename(filename))
        return real(text, filename, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(check, "check_text", spy)
    return seen


def test_a_second_run_reads_the_findings_back(tmp_path: Path, analyses: list[str]) -> None:
    h = write(tmp_path / "h.py", HELPER)
    assert _codes(h, _cache(tmp_path)) == ["JR002"]
    assert _codes(h, _cache(tmp_path)) == ["JR002"]
    assert analyses == ["h.py"]  # the second run analyzed nothing


def test_other_bytes_are_analyzed_again(tmp_path: Path, analyses: list[str]) -> None:
    h = write(tmp_path / "h.py", HELPER)
    assert _codes(h, _cache(tmp_path)) == ["JR002"]
    h.write_text(
        HELPER.replace("Static", "int") + "\n# same length or not, other bytes\n", encoding="utf-8"
    )
    assert _codes(h, _cache(tmp_path)) == [d.code for d in check_path(str(h), Config())]
    assert analyses[:2] == ["h.py", "h.py"]


def test_another_version_does_not_read_this_ones_entries(
    tmp_path: Path, analyses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    h = write(tmp_path / "h.py", HELPER)
    _codes(h, _cache(tmp_path))
    monkeypatch.setattr(check, "__version__", "999.0")
    _codes(h, _cache(tmp_path))
    assert analyses == ["h.py", "h.py"]
    assert sorted(os.listdir(tmp_path / ".jaxrewrite_cache"))[-2:] == ["999.0", "CACHEDIR.TAG"]


@pytest.mark.parametrize(
    "other",
    [
        Config(select=("JR003",)),
        Config(ignore=("JR002",)),
        Config(per_file_ignores=(("h.py", ("JR002",)),)),
    ],
    ids=["select", "ignore", "per-file-ignores"],
)
def test_other_options_are_analyzed_again(
    tmp_path: Path, analyses: list[str], other: Config
) -> None:
    h = write(tmp_path / "h.py", HELPER)
    assert _codes(h, _cache(tmp_path)) == ["JR002"]
    assert _codes(h, _cache(tmp_path, other), other) == []
    assert analyses == ["h.py", "h.py"]


def test_the_same_file_named_another_way_keeps_its_own_name(tmp_path: Path) -> None:
    h = write(tmp_path / "h.py", HELPER)
    cache = _cache(tmp_path)
    check_path(str(h), Config(), cache=cache)
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert [d.filename for d in check_path("h.py", Config(), cache=cache)] == ["h.py"]
    finally:
        os.chdir(here)


def test_a_followed_module_that_changes_is_analyzed_again(
    tmp_path: Path, analyses: list[str]
) -> None:
    """JR013 depends on mymod.py: its entry in main.py's holds mymod.py's hash."""
    mymod = write(tmp_path / "mymod.py", MYMOD)
    main = write(tmp_path / "main.py", MAIN)
    assert _codes(main, _cache(tmp_path)) == ["JR013"]
    assert _codes(main, _cache(tmp_path)) == ["JR013"]
    assert analyses == ["main.py"]
    mymod.write_text(MYMOD.replace("n: Static[int]", "n"), encoding="utf-8")
    assert _codes(main, _cache(tmp_path)) == []
    assert analyses == ["main.py", "main.py"]


def test_a_followed_module_that_appears_is_analyzed_again(tmp_path: Path) -> None:
    """No mymod.py at first: the entry says the import resolved to nothing."""
    main = write(tmp_path / "main.py", MAIN)
    assert _codes(main, _cache(tmp_path)) == []
    write(tmp_path / "mymod.py", MYMOD)
    assert _codes(main, _cache(tmp_path)) == ["JR013"]


def test_a_relative_import_that_changes_is_analyzed_again(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "__init__.py", "")
    mymod = write(tmp_path / "pkg" / "mymod.py", MYMOD)
    use = write(tmp_path / "pkg" / "use.py", MAIN.replace("from mymod", "from .mymod"))
    assert _codes(use, _cache(tmp_path)) == ["JR013"]
    mymod.write_text(MYMOD.replace("n: Static[int]", "n"), encoding="utf-8")
    assert _codes(use, _cache(tmp_path)) == []


def test_a_corrupt_entry_is_a_miss(tmp_path: Path) -> None:
    h = write(tmp_path / "h.py", HELPER)
    cache = _cache(tmp_path)
    _codes(h, cache)
    [entry] = [Path(d) / f for d, _, fs in os.walk(cache[0]) for f in fs if len(f) > 20]
    entry.write_text('{"findings": [{"code": 1}', encoding="utf-8")
    assert _codes(h, cache) == ["JR002"]


# -- the command ------------------------------------------------------------------------------


def test_the_folder_is_tagged_and_ignored_as_ruffs_is(tmp_path: Path) -> None:
    write(tmp_path / "h.py", HELPER)
    assert jaxrewrite("check", cwd=tmp_path).returncode == 1
    folder = tmp_path / ".jaxrewrite_cache"
    assert (
        (folder / "CACHEDIR.TAG")
        .read_text()
        .startswith("Signature: 8a477f597d28d172789f06886806bc55\n")
    )
    assert (folder / ".gitignore").read_text().endswith("\n*\n")
    again = jaxrewrite("check", cwd=tmp_path)
    assert (again.returncode, again.stdout.splitlines()[-1]) == (1, "Found 1 finding in 1 file.")


def test_no_cache_neither_reads_nor_writes(tmp_path: Path) -> None:
    write(tmp_path / "h.py", HELPER)
    done = jaxrewrite("check", "--no-cache", cwd=tmp_path)
    assert done.returncode == 1 and not (tmp_path / ".jaxrewrite_cache").exists()
    jaxrewrite("check", cwd=tmp_path)
    folder = tmp_path / ".jaxrewrite_cache"
    for entry in (Path(d) / f for d, _, fs in os.walk(folder) for f in fs if len(f) > 20):
        entry.write_text(
            '{"findings": [], "reads": []}', encoding="utf-8"
        )  # a lie --no-cache must not read
    assert jaxrewrite("check", cwd=tmp_path).returncode == 0
    assert jaxrewrite("check", "--no-cache", cwd=tmp_path).returncode == 1


def test_cache_dir_from_the_configuration(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.jaxrewrite]\ncache-dir = "build/jr"\n')
    write(tmp_path / "h.py", HELPER)
    assert jaxrewrite("check", "h.py", cwd=tmp_path).returncode == 1
    assert (tmp_path / "build" / "jr" / "CACHEDIR.TAG").is_file()
    assert not (tmp_path / ".jaxrewrite_cache").exists()
    write(tmp_path / "pyproject.toml", "[tool.jaxrewrite]\ncache-dir = 3\n")
    bad = jaxrewrite("check", "h.py", cwd=tmp_path)
    assert bad.returncode == 2 and "'cache-dir' must be a folder path" in bad.stderr


def test_two_runs_at_once(tmp_path: Path) -> None:
    """Both write every entry: each is written whole (a temporary file, then a rename), so that
    neither, nor a third run after them, reads half of one; no temporary file is left."""
    for i in range(60):  # enough files for the process pool, where the cores are idle
        write(tmp_path / "pkg" / f"h{i:02}.py", HELPER)
    command = [sys.executable, "-m", "jaxrewrite", "check", "pkg"]
    runs = [
        subprocess.Popen(command, cwd=tmp_path, env=child_env(), stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=600)[0] for run in runs]
    third = jaxrewrite("check", "pkg", cwd=tmp_path)
    assert [run.returncode for run in runs] == [1, 1] and third.returncode == 1
    assert outputs[0] == outputs[1] == third.stdout
    assert third.stdout.endswith("Found 60 findings in 60 files.\n")
    left = [
        f for _, _, fs in os.walk(tmp_path / ".jaxrewrite_cache") for f in fs if f.endswith(".tmp")
    ]
    assert left == []


# -- the process pool -----------------------------------------------------------------------------


@pytest.mark.filterwarnings(
    "ignore:os.fork\\(\\) was called:RuntimeWarning"
)  # this process imported jax; check does not
def test_the_pool_finds_what_one_process_finds(tmp_path: Path) -> None:
    for i in range(12):
        write(tmp_path / f"h{i:02}.py", HELPER if i % 2 else MAIN)
    write(tmp_path / "mymod.py", MYMOD)
    (tmp_path / "bad.py").write_bytes(b"import jax\njax.jit(f)\nx = '\xff'\n")
    files = [(str(p), False) for p in sorted(tmp_path.glob("*.py"))]
    cache = _cache(tmp_path)
    alone = check.examine_all(files, Config(), cache=cache, processes=1)
    # from the cache the one process filled, then without it
    assert check.examine_all(files, Config(), cache=cache, processes=2) == alone
    assert check.examine_all(files, Config(), processes=2) == alone
    assert (
        sum(1 for _, error in alone if error) == 1 and sum(len(found) for found, _ in alone) >= 12
    )


def test_processes_only_for_many_files_and_idle_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.1, 0.0, 0.0), raising=False)
    assert check.workers(check.POOL_FROM - 1) == 1
    assert check.workers(check.POOL_FROM) == 2
    monkeypatch.setattr(
        os, "getloadavg", lambda: (12.8, 0.0, 0.0), raising=False
    )  # this machine, measuring
    assert check.workers(10 * check.POOL_FROM) == 1


def test_a_followed_alias_module_that_changes_is_analyzed_again(tmp_path: Path) -> None:
    """JR009 (the ledger, in a module that opts in) follows ``from .aliases import SInt`` too."""
    write(tmp_path / "pkg" / "__init__.py", "")
    aliases = write(
        tmp_path / "pkg" / "aliases.py", "from jaxrewrite import Static\nSInt = Static[int]\n"
    )
    use = write(
        tmp_path / "pkg" / "use.py",
        "# jaxrewrite: enable\nimport jax\n\nfrom .aliases import SInt\n\n\n@jax.jit\n"
        "def f(x, n: SInt):\n    return x\n",
    )
    assert _codes(use, _cache(tmp_path)) == ["JR009"]
    aliases.write_text("SInt = int\n", encoding="utf-8")
    assert _codes(use, _cache(tmp_path)) == [d.code for d in check_path(str(use), Config())] == []


@pytest.mark.filterwarnings(
    "ignore:os.fork\\(\\) was called:RuntimeWarning"
)  # this process imported jax; check does not
def test_a_warm_run_over_many_files_answers_from_the_cache_without_a_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the needle rules out or the cache holds is answered by the one process: a warm run
    over an unchanged tree starts no pool (on 16 idle cores a pool made the warm run 1.6x ruff's
    wall time: benchmarks/results.md), and finds what the cold one found."""
    for i in range(check.POOL_FROM + 4):
        write(tmp_path / f"h{i:02}.py", HELPER if i % 2 else MAIN)
    write(tmp_path / "plain.py", "x = 1\n")
    write(tmp_path / "mymod.py", MYMOD)
    monkeypatch.setattr(check, "workers", lambda files: 2)  # as if a core were idle
    pools: list[int] = []

    class Counting(concurrent.futures.ProcessPoolExecutor):
        def map(self, fn: Any, *iterables: Any, **kwargs: Any) -> Any:
            items = list(iterables[0])
            pools.append(len(items))
            return super().map(fn, items, *iterables[1:], **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Counting)
    files = [(str(p), False) for p in sorted(tmp_path.glob("*.py"))]
    cold = check.examine_all(files, Config(), cache=_cache(tmp_path))
    assert pools == [len(files) - 1]  # the plain file was answered at once, the rest in the pool
    warm = check.examine_all(files, Config(), cache=_cache(tmp_path))
    assert warm == cold and pools == [len(files) - 1]
    assert sum(len(found) for found, _ in cold) >= check.POOL_FROM // 2


def test_an_engine_edited_under_the_same_version_is_another_analysis(tmp_path: Path) -> None:
    """In a checkout the engine is edited without a new version: the key holds the engine's
    digest (the cache tag's), so the next run analyzes again and says what the edited engine
    says, not what the cache kept. Run on a copy of the package, as a developer edits it."""
    package = Path(check.__file__).parents[1]
    site = tmp_path / "site"
    shutil.copytree(package, site / "jaxrewrite", ignore=shutil.ignore_patterns("__pycache__"))
    h = write(tmp_path / "work" / "h.py", HELPER)
    env = {**child_env(), "PYTHONPATH": str(site)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def run() -> str:
        done = subprocess.run(
            [sys.executable, "-m", "jaxrewrite", "check", "h.py"],
            cwd=h.parent,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode in (0, 1), done.stderr
        return done.stdout

    first = run()
    assert "JR002" in first and run() == first  # the second run from the cache
    rules = site / "jaxrewrite" / "engine" / "findings" / "checks" / "no_transform.py"
    text = rules.read_text(encoding="utf-8")
    edited = text.replace(
        "no transform in this module applies to",
        "EDITED: no transform in this module applies to",
        1,
    )
    assert edited != text
    rules.write_text(edited, encoding="utf-8")
    assert "EDITED" in run()  # analysed again, by the edited engine
