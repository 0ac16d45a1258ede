"""The opt-in index (jaxrewrite/hook/index.py): files that do not opt in are read once, then
settled by one stat, and nothing the index does can change what runs.

Import-level cases run in fresh interpreters with bytecode writing on (helpers_hook); the
read-only ones as an unprivileged user, since root writes through any mode bits.
"""

from __future__ import annotations

import importlib.util
import json
import marshal
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers_hook import PLAIN_CALL, REPO, REWRITTEN_CALL, Project, report

from jaxrewrite.hook import index, pipeline, tag

#: The plain module's marker, without NotRewrittenWarning's check: run plainly, it reads no
#: source (which would open the file the tests watch). The opted-in one takes the marker the
#: engine reads, padded to the same length.
UNCHECKED_IMPORT = 'from jaxrewrite.markers import UNCHECKED as M; Static = M["Static"]'
CHECKED_IMPORT = "from jaxrewrite.markers import Static"
CHECKED_IMPORT += "  #" + " " * (len(UNCHECKED_IMPORT) - len(CHECKED_IMPORT) - 3)
OPTED_IN = (
    """\
# jaxrewrite: enable
import jax
"""
    + CHECKED_IMPORT
    + """

VALUE = {value}


@jax.jit
def f(x, n: Static[int]):
    return x
"""
)
#: The same without its pragma, the same length: a same-size edit turns one into the other.
PLAIN = OPTED_IN.replace("# jaxrewrite: enable", "# a plain module ...").replace(CHECKED_IMPORT, UNCHECKED_IMPORT)
assert len(PLAIN) == len(OPTED_IN) and "enable" not in PLAIN

#: The child: install the hook, record every file opened, import the modules, report.
PROBE = """\
import importlib, json, sys
import jaxrewrite
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)
jaxrewrite.install()
found = {}
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    found[name] = [type(module.__loader__).__name__, getattr(module, "VALUE", None)]
import jax
print(json.dumps({"modules": found, "opened": opened, "jit": jax.CALLS}))
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def probe(project: Project, *modules: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Import ``modules`` through the hook in a fresh interpreter: loaders, values, files opened."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *modules],
        cwd=project.root,
        env=env or project.env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return report(done)


def settle(*paths: Path, seconds: int = 60) -> None:
    """Make files look written a while ago: the index never records a file modified just now."""
    then = time.time_ns() - seconds * 1_000_000_000
    for path in paths:
        os.utime(path, ns=(then, then))


def index_file(folder: Path, prefix: Path | None = None) -> Path:
    """Where this jaxrewrite's index of ``folder`` is (each scanner digest has its own)."""
    name = f"jaxrewrite-optin.{sys.implementation.cache_tag}-{tag.digests().scanner[:16]}.idx"
    if prefix is None:
        return folder / "__pycache__" / name
    return prefix / str(folder).lstrip(os.sep) / name


def entries(path: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry of the index file at ``path``, across its shards."""
    shards = index.read(str(path), tag.digests().scanner)
    assert shards is not None, f"{path} is not an index this scanner wrote"
    found: dict[str, tuple[int, int, int]] = {}
    for blob in shards.values():
        found.update(marshal.loads(blob))
    return found


def opened_sources(result: dict[str, Any], *paths: Path) -> list[str]:
    return [p for p in result["opened"] if p in {str(path) for path in paths}]


# --- at import time, in child processes -----------------------------------------------------


def test_a_file_that_does_not_opt_in_is_read_once(project: Project) -> None:
    plain = project.write("plain_mod.py", PLAIN.format(value=1))
    settle(plain)
    first = probe(project, "plain_mod")
    assert first["modules"]["plain_mod"] == ["SourceFileLoader", 1]
    idx = index_file(project.src)
    assert entries(idx) == {str(plain): (plain.stat().st_mtime_ns, plain.stat().st_size, index.NO)}
    # Python's pyc is valid now, so the only reader the source could have is the hook: it has none.
    second = probe(project, "plain_mod")
    assert second["modules"]["plain_mod"] == ["SourceFileLoader", 1] and opened_sources(second, plain) == []
    # The control: without the index, the hook reads it again.
    idx.unlink()
    assert opened_sources(probe(project, "plain_mod"), plain) == [str(plain)]


def test_files_in_packages_are_indexed_by_their_root(project: Project) -> None:
    """One index per import root, whatever the depth: ``pkg.sub.mod`` is in ``src``'s index."""
    files = [
        project.write("pkg/__init__.py", "VALUE = 0\n"),
        project.write("pkg/sub/__init__.py", ""),
        project.write("pkg/sub/mod.py", PLAIN.format(value=2)),
        project.write("loose.py", "VALUE = 3\n"),
    ]
    settle(*files)
    first = probe(project, "pkg.sub.mod", "loose")
    assert first["modules"] == {"pkg.sub.mod": ["SourceFileLoader", 2], "loose": ["SourceFileLoader", 3]}
    assert set(entries(index_file(project.src))) == {str(path) for path in files}
    assert not (project.src / "pkg" / "__pycache__" / index_file(project.src).name).exists()
    assert opened_sources(probe(project, "pkg.sub.mod", "loose"), *files) == []


def test_no_folder_is_added_to_a_source_tree(project: Project) -> None:
    """The index of a root goes into the root's __pycache__ only if Python made one (for a
    module of the root itself): a src/ holding only packages gets no __pycache__ of its own."""
    files = [project.write("pkg/__init__.py", ""), project.write("pkg/mod.py", "VALUE = 5\n")]
    settle(*files)
    for _ in range(2):
        assert probe(project, "pkg.mod")["modules"] == {"pkg.mod": ["SourceFileLoader", 5]}
    assert not (project.src / "__pycache__").exists() and (project.src / "pkg" / "__pycache__").is_dir()


def test_an_edit_that_opts_in_is_seen_through_its_new_mtime(project: Project) -> None:
    path = project.write("mod.py", PLAIN.format(value=1))
    settle(path)
    assert probe(project, "mod")["modules"]["mod"] == ["SourceFileLoader", 1]
    stat = path.stat()
    path.write_text(OPTED_IN.format(value=2))  # the same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000))  # a microsecond later
    assert path.stat().st_size == stat.st_size
    # The stat the loader takes for its pyc finds the edit: the bytes are decided again, and
    # rewritten by the plain loader the finder left (its pyc of the old text neither run nor
    # replaced); the index learns that the file opts in, so the next process takes the hook's.
    result = probe(project, "mod")
    assert result["modules"]["mod"] == ["SourceFileLoader", 2] and result["jit"] == [REWRITTEN_CALL]
    assert entries(index_file(project.src))[str(path)][2] == index.MAYBE
    again = probe(project, "mod")
    assert again["modules"]["mod"] == ["RewritingLoader", 2] and again["jit"] == [REWRITTEN_CALL]


def test_an_edit_that_keeps_size_and_mtime_is_missed_as_python_misses_it(project: Project) -> None:
    """The limit of trusting (mtime_ns, size), shown: Python's own pyc runs the previous text,
    and the index keeps the previous verdict, so the previous text runs, plainly, as before."""
    path = project.write("mod.py", PLAIN.format(value=1))
    settle(path)
    probe(project, "mod")
    stat = path.stat()
    path.write_text(OPTED_IN.format(value=2))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert probe(project, "mod")["modules"]["mod"] == ["SourceFileLoader", 1]
    alone: Any = report(project.run("import mod, json; print(json.dumps(mod.VALUE))"))
    assert alone == 1  # Python alone
    os.utime(path)  # touched: both see it
    touched = probe(project, "mod")
    assert touched["modules"]["mod"] == ["SourceFileLoader", 2] and touched["jit"] == [REWRITTEN_CALL]
    assert probe(project, "mod")["modules"]["mod"] == ["RewritingLoader", 2]


def test_a_plain_pyc_of_text_that_opts_in_since_it_was_indexed_never_runs(project: Project) -> None:
    """The pragma added, then an import without the hook: Python's pyc is valid for the new
    bytes, and the index entry is not. The stat the loader takes finds the entry stale before
    the pyc is read; the plain code never runs, and no plain pyc is written from rewritten code."""
    path = project.write("mod.py", PLAIN.format(value=1))
    settle(path)
    assert probe(project, "mod")["modules"]["mod"] == ["SourceFileLoader", 1]
    path.write_text(OPTED_IN.format(value=2))
    settle(path, seconds=30)
    plainly: Any = report(project.run("import mod, jax, json; print(json.dumps([mod.VALUE, jax.CALLS]))"))
    assert plainly == [2, [PLAIN_CALL]]  # Python alone: the new text, plainly, its pyc written
    pyc = importlib.util.cache_from_source(str(path))
    written = Path(pyc).read_bytes()
    result = probe(project, "mod")
    assert result["modules"]["mod"] == ["SourceFileLoader", 2] and result["jit"] == [REWRITTEN_CALL]
    assert Path(pyc).read_bytes() == written
    assert entries(index_file(project.src))[str(path)] == (path.stat().st_mtime_ns, path.stat().st_size, index.MAYBE)
    assert probe(project, "mod")["jit"] == [REWRITTEN_CALL]


#: The child for the stat count: every stat a plain loader takes for its pyc, by whom.
STATS = """import json, sys
from importlib.machinery import SourceFileLoader
import jaxrewrite
from jaxrewrite.hook import finder
calls = {"finder": [], "loader": []}
own_stat, own_path_stats = finder._stat, SourceFileLoader.path_stats
finder._stat = lambda path: calls["finder"].append(path) or own_stat(path)
SourceFileLoader.path_stats = lambda self, path: calls["loader"].append(path) or own_path_stats(self, path)
jaxrewrite.install()
for name in sys.argv[1:]:
    __import__(name)
print(json.dumps(calls))
"""


def test_a_settled_file_costs_one_stat_its_loaders_own(project: Project) -> None:
    """The index is checked by the stat the loader takes to validate its pyc: a settled file
    costs the hook no stat of its own, and its loader no second one."""
    files = [project.write(f"plain_{i}.py", f"VALUE = {i}\n") for i in range(3)]
    settle(*files)
    names = [path.stem for path in files]
    probe(project, *names)  # indexes them; Python writes their pycs
    done = subprocess.run(
        [sys.executable, "-c", STATS, *names], cwd=project.root, env=project.env(), capture_output=True, text=True, timeout=120, check=False
    )
    calls = report(done)
    assert sorted(calls["finder"]) == sorted(str(path) for path in files)  # one each, in _StatCheck
    assert not set(calls["loader"]) & {str(path) for path in files}  # SourceFileLoader's own: never


def test_a_file_modified_just_now_is_not_indexed(project: Project) -> None:
    """Racy stats: a second same-size write in the same timestamp tick would keep them."""
    path = project.write("mod.py", PLAIN.format(value=1))  # mtime: now
    assert probe(project, "mod")["modules"]["mod"] == ["SourceFileLoader", 1]
    idx = index_file(project.src)
    assert not idx.exists() or str(path) not in entries(idx)
    stat = path.stat()
    path.write_text(OPTED_IN.format(value=2))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert probe(project, "mod")["modules"]["mod"] == ["RewritingLoader", 2]


def test_an_opted_in_file_is_always_read_and_checked(project: Project) -> None:
    """Its entry is only a hint: the hook reads it in full, and the hash-checked pyc decides."""
    path = project.write("mod.py", OPTED_IN.format(value=1))
    settle(path)
    probe(project, "mod")
    assert entries(index_file(project.src))[str(path)][2] == index.MAYBE
    again = probe(project, "mod")
    assert again["modules"]["mod"] == ["RewritingLoader", 1] and str(path) in again["opened"]


def test_a_file_that_stops_opting_in_is_indexed_again(project: Project) -> None:
    path = project.write("mod.py", OPTED_IN.format(value=1))
    settle(path)
    probe(project, "mod")
    path.write_text(PLAIN.format(value=2))
    settle(path, seconds=30)
    assert probe(project, "mod")["modules"]["mod"] == ["SourceFileLoader", 2]
    assert entries(index_file(project.src))[str(path)] == (-1, -1, index.NO)  # read without a stat: dropped
    probe(project, "mod")  # read after a stat: recorded
    assert entries(index_file(project.src))[str(path)] == (path.stat().st_mtime_ns, path.stat().st_size, index.NO)
    assert opened_sources(probe(project, "mod"), path) == []


def _forge(idx: Path, scanner: str, found: dict[str, tuple[int, int, int]]) -> None:
    idx.parent.mkdir(parents=True, exist_ok=True)
    idx.write_bytes(marshal.dumps((index.FORMAT, scanner, {"": marshal.dumps(found)})))


def test_an_index_written_by_another_scanner_is_never_trusted(project: Project) -> None:
    # A plain module of the same root first: its index is read before mod is looked at (the
    # first file of a root is tried against its own rewritten pyc first: the test below).
    first = project.write("first.py", "VALUE = 0\n")
    path = project.write("mod.py", OPTED_IN.format(value=1))
    settle(first, path)
    idx = index_file(project.src)
    lie = {str(path): (path.stat().st_mtime_ns, path.stat().st_size, index.NO)}
    _forge(idx, "0" * 16, lie)
    assert probe(project, "first", "mod")["modules"]["mod"] == ["RewritingLoader", 1]
    assert entries(idx)[str(path)][2] == index.MAYBE  # replaced by this scanner's
    # The control: the same lie under this scanner's digest is believed (so the digest is what
    # keeps another scanner's verdicts out), exactly as a forged pyc would be.
    _forge(idx, tag.digests().scanner, lie)
    assert probe(project, "first", "mod")["modules"]["mod"] == ["SourceFileLoader", 1]


def test_the_first_file_of_a_root_with_a_rewritten_pyc_needs_no_index(project: Project) -> None:
    """An opted-in module imported first from its root is decided by its own hash-checked pyc:
    the root's index is not read (an index settles only files that cannot opt in), and is read
    once a module of the root without such a pyc follows; a pyc whose source stopped opting in
    is removed, so that source is not read by every process to learn that again."""
    path = project.write("mod.py", OPTED_IN.format(value=1))
    plain = project.write("plain_mod.py", PLAIN.format(value=2))
    settle(path, plain)
    assert probe(project, "mod", "plain_mod")["modules"] == {"mod": ["RewritingLoader", 1], "plain_mod": ["SourceFileLoader", 2]}
    idx = index_file(project.src)
    assert set(entries(idx)) == {str(path), str(plain)}
    warm = probe(project, "mod")
    assert warm["modules"]["mod"] == ["RewritingLoader", 1] and str(idx) not in warm["opened"]
    assert opened_sources(warm, path) == [str(path)]  # read once, in full, and hash-checked
    both = probe(project, "mod", "plain_mod")
    assert str(idx) in both["opened"] and opened_sources(both, plain) == []
    # The lie of a forged index is not what decides a file with a valid rewritten pyc.
    _forge(idx, tag.digests().scanner, {str(path): (path.stat().st_mtime_ns, path.stat().st_size, index.NO)})
    assert probe(project, "mod")["modules"]["mod"] == ["RewritingLoader", 1]
    # Its pragma removed: the stale pyc is read once, found stale, and removed.
    pyc = Path(tag.cache_path(str(path), 0, pipeline.DEFAULT.name) or "")
    assert pyc.is_file()
    path.write_text(PLAIN.format(value=3))
    settle(path, seconds=30)
    assert probe(project, "mod")["modules"]["mod"] == ["SourceFileLoader", 3]
    assert not pyc.exists()
    probe(project, "mod")  # read after a stat, with the index: recorded
    assert opened_sources(probe(project, "mod"), path) == []


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda d: d[: len(d) // 2], id="truncated"),
        pytest.param(lambda d: os.urandom(len(d)), id="garbage"),
        pytest.param(lambda d: b"", id="empty"),
        pytest.param(lambda d: marshal.dumps(42), id="not-an-index"),
        pytest.param(lambda d: marshal.dumps((index.FORMAT, tag.digests().scanner, {"": b"\x00"})), id="damaged-shard"),
        pytest.param(lambda d: marshal.dumps((index.FORMAT, tag.digests().scanner, {"": 7})), id="shard-not-bytes"),
        pytest.param(
            lambda d: marshal.dumps((index.FORMAT, tag.digests().scanner, {"": marshal.dumps({"x": 1})})),
            id="entry-not-a-tuple",
        ),
    ],
)
def test_a_damaged_index_is_ignored_and_replaced(project: Project, damage: Callable[[bytes], bytes]) -> None:
    plain = project.write("plain_mod.py", PLAIN.format(value=1))
    opted = project.write("mod.py", OPTED_IN.format(value=2))
    settle(plain, opted)
    probe(project, "plain_mod", "mod")
    idx = index_file(project.src)
    idx.write_bytes(damage(idx.read_bytes()))
    result = probe(project, "plain_mod", "mod")
    assert result["modules"] == {"plain_mod": ["SourceFileLoader", 1], "mod": ["RewritingLoader", 2]}
    assert set(entries(idx)) == {str(plain), str(opted)}


def test_damaged_entries_for_the_very_files_imported_are_skipped(project: Project) -> None:
    plain = project.write("plain_mod.py", PLAIN.format(value=1))
    opted = project.write("mod.py", OPTED_IN.format(value=2))
    settle(plain, opted)
    scanner = tag.digests().scanner
    for bad in [1, (1, 2), ("a", "b", "c"), None]:
        idx = index_file(project.src)
        idx.parent.mkdir(exist_ok=True)
        idx.write_bytes(marshal.dumps((index.FORMAT, scanner, {"": marshal.dumps({str(plain): bad, str(opted): bad})})))
        result = probe(project, "plain_mod", "mod")
        assert result["modules"] == {"plain_mod": ["SourceFileLoader", 1], "mod": ["RewritingLoader", 2]}, bad


def test_dont_write_bytecode_reads_an_index_but_never_writes_one(project: Project) -> None:
    plain = project.write("plain_mod.py", PLAIN.format(value=1))
    settle(plain)
    quiet = project.env(PYTHONDONTWRITEBYTECODE="1")
    probe(project, "plain_mod", env=quiet)
    assert not index_file(project.src).exists()
    probe(project, "plain_mod")  # writes it (and the plain pyc)
    assert opened_sources(probe(project, "plain_mod", env=quiet), plain) == []


def test_pycache_prefix_holds_the_index(project: Project) -> None:
    plain = project.write("plain_mod.py", PLAIN.format(value=1))
    settle(plain)
    prefix = project.root / "prefix"
    env = project.env(PYTHONPYCACHEPREFIX=str(prefix))
    probe(project, "plain_mod", env=env)
    assert str(plain) in entries(index_file(project.src, prefix)) and not (project.src / "__pycache__").exists()
    assert opened_sources(probe(project, "plain_mod", env=env), plain) == []
    assert index.index_path(str(project.src)) is not None


def test_a_module_whose_name_does_not_match_its_path_gets_its_folders_index(project: Project) -> None:
    """A finder may name a file anything (spec_from_file_location): such a file is indexed in
    its own folder's file, and found there again."""
    path = project.write("lib/real_name.py", PLAIN.format(value=4))
    settle(path)
    code = textwrap.dedent(
        f"""\
        import importlib.util, json, sys, jaxrewrite
        opened = []
        sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)

        class Aliasing:
            @classmethod
            def find_spec(cls, fullname, path=None, target=None):
                if fullname == "alias":
                    return importlib.util.spec_from_file_location("alias", {str(path)!r})
                return None

        sys.meta_path.append(Aliasing)
        jaxrewrite.install()
        import alias
        print(json.dumps([alias.VALUE, type(alias.__loader__).__name__, {str(path)!r} in opened]))
        """
    )
    first: Any = report(project.run(code))
    assert first == [4, "SourceFileLoader", True]
    assert str(path) in entries(index_file(path.parent))
    again: Any = report(project.run(code))
    assert again == [4, "SourceFileLoader", False]


def test_entries_of_deleted_files_are_dropped(project: Project) -> None:
    gone = project.write("gone.py", "VALUE = 1\n")
    kept = project.write("kept.py", "VALUE = 2\n")
    settle(gone, kept)
    probe(project, "gone", "kept")
    assert set(entries(index_file(project.src))) == {str(gone), str(kept)}
    gone.unlink()
    new = project.write("new.py", "VALUE = 3\n")
    settle(new)
    probe(project, "new")
    assert set(entries(index_file(project.src))) == {str(kept), str(new)}


def test_two_processes_writing_one_index(project: Project) -> None:
    """Each merges what it finds on disk at exit and replaces the file whole: the index is
    always one of the writers' (never half a file, no temp file left)."""
    paths = [project.write(f"m{i}.py", f"VALUE = {i}\n") for i in range(6)]
    settle(*paths)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", PROBE, *names],
            cwd=project.root,
            env=project.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for names in (["m0", "m1", "m2"], ["m3", "m4", "m5"])
    ]
    for child in children:
        _, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
    idx = index_file(project.src)
    found = set(entries(idx))
    assert {str(p) for p in paths[:3]} <= found or {str(p) for p in paths[3:]} <= found
    assert not [p for p in os.listdir(idx.parent) if p.endswith(".tmp")]
    probe(project, *(p.stem for p in paths))  # a third process records whatever a race lost
    assert set(entries(idx)) == {str(p) for p in paths}


def test_packages_filter_touches_no_index(project: Project) -> None:
    plain = project.write("plain_mod.py", "VALUE = 1\n")
    settle(plain)
    for _ in range(2):
        report(project.run("import jaxrewrite; jaxrewrite.install(['other']); import plain_mod; print('{}')"))
    assert not index_file(project.src).exists()


# --- read-only folders, as an unprivileged user ---------------------------------------------

NOBODY = 65534


def _python_for_nobody() -> str | None:
    """An interpreter of this version the unprivileged user can run, or None."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    for candidate in (sys.executable, f"/usr/bin/{version}", f"/usr/local/bin/{version}"):
        done = subprocess.run(
            ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", candidate, "-c", "import json"],
            capture_output=True,
            cwd="/",
            check=False,
        )
        if done.returncode == 0:
            return candidate
    return None


@pytest.fixture
def shared_project() -> Iterator[Project]:
    """A project every user can read and only root can write (pytest's tmp_path is private)."""
    base = Path(tempfile.mkdtemp(prefix="jaxrewrite-index-", dir="/tmp"))
    try:
        base.chmod(0o755)
        project = Project(base)
        # jaxrewrite and its third-party imports, where the unprivileged interpreter can find them
        # (the checkout itself may sit in a folder only root can enter, as a clone in mktemp -d
        # does; the children list the checkout first, so root's use it and nobody's this copy,
        # of the same content and so the same digests).
        site = base / "site"
        site.mkdir()
        import astor
        import typing_extensions

        shutil.copy(typing_extensions.__file__, site / "typing_extensions.py")
        shutil.copytree(os.path.dirname(astor.__file__), site / "astor", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO / "jaxrewrite", site / "jaxrewrite", ignore=shutil.ignore_patterns("__pycache__"))
        for path in [site, *site.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        yield project
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _as_nobody(python: str, project: Project, modules: list[str]) -> dict[str, Any]:
    env = project.env()
    env["PYTHONPATH"] += os.pathsep + str(project.root / "site")
    env["HOME"] = "/nonexistent"
    done = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", python, "-c", PROBE, *modules],
        cwd="/",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return report(done)


def _as_root(python: str, project: Project, modules: list[str]) -> dict[str, Any]:
    env = project.env()
    env["PYTHONPATH"] += os.pathsep + str(project.root / "site")
    done = subprocess.run(
        [python, "-c", PROBE, *modules], cwd=project.root, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    return report(done)


def test_a_read_only_folder_is_read_as_without_an_index(shared_project: Project) -> None:
    python = _python_for_nobody()
    if python is None:
        pytest.skip("needs root, setpriv and a Python the unprivileged user can run")
    project = shared_project
    plain = project.write("plain_mod.py", PLAIN.format(value=1))
    opted = project.write("mod.py", OPTED_IN.format(value=2))
    settle(plain, opted)
    for folder in (project.root, project.src, project.root / "fake", project.root / "fake" / "jax", project.root / "site"):
        folder.chmod(0o755)
    for _ in range(2):
        result = _as_nobody(python, project, ["plain_mod", "mod"])
        assert result["modules"] == {"plain_mod": ["SourceFileLoader", 1], "mod": ["RewritingLoader", 2]}
        assert result["jit"] == [PLAIN_CALL, REWRITTEN_CALL]
        assert str(plain) in result["opened"]  # no index: read, as before there was one
    assert not (project.src / "__pycache__").exists()

    # Where root wrote an index (and the pycs) beforehand, the unprivileged user reads it.
    _as_root(python, project, ["plain_mod", "mod"])
    assert set(entries(index_file(project.src))) == {str(plain), str(opted)}
    for path in [project.src / "__pycache__", *(project.src / "__pycache__").iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    result = _as_nobody(python, project, ["plain_mod", "mod"])
    assert result["modules"] == {"plain_mod": ["SourceFileLoader", 1], "mod": ["RewritingLoader", 2]}
    assert str(plain) not in result["opened"]


# --- the pieces, in process -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("folder", "module", "filename", "expected"),
    [
        ("/r/jax/_src/lax", "jax._src.lax.lax", "lax.py", ("/r", "jax")),
        ("/r/jax/_src/lax", "jax._src.lax", "__init__.py", ("/r", "jax")),
        ("/r/jax", "jax", "__init__.py", ("/r", "jax")),
        ("/r", "typing_extensions", "typing_extensions.py", ("/r", "")),
        ("/elsewhere/src", "alias", "real_name.py", ("/elsewhere/src", "")),  # the name is not the file's
        ("/r/vendored/six", "six.moves", "moves.py", ("/r/vendored", "six")),
        ("/r/extra", "six.moves", "moves.py", ("/r/extra", "")),  # a __path__ entry elsewhere
        ("/jax", "jax", "__init__.py", ("/jax", "")),  # no folder above the package: its own
    ],
)
def test_root_of(folder: str, module: str, filename: str, expected: tuple[str, str]) -> None:
    if os.sep != "/":
        pytest.skip("POSIX paths")
    assert index._root_of(folder, module, filename) == expected


def test_index_path_follows_the_pycache_prefix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = str(tmp_path / "src")
    monkeypatch.setattr(sys, "pycache_prefix", None)
    plain = index.index_path(folder)
    assert plain is not None and os.path.dirname(plain) == os.path.dirname(importlib.util.cache_from_source(os.path.join(folder, "m.py")))
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "prefix"))
    prefixed = index.index_path(folder)
    assert prefixed is not None
    assert os.path.dirname(prefixed) == os.path.dirname(importlib.util.cache_from_source(os.path.join(folder, "m.py")))
    assert not prefixed.endswith(".pyc") and not os.path.basename(prefixed).replace("-", "_").isidentifier()


def test_read_rejects_what_this_scanner_did_not_write(tmp_path: Path) -> None:
    path = tmp_path / "idx"
    scanner = "a" * 16
    path.write_bytes(marshal.dumps((index.FORMAT, scanner, {"": marshal.dumps({})})))
    assert index.read(str(path), scanner) == {"": marshal.dumps({})}
    assert index.read(str(path), "b" * 16) is None
    path.write_bytes(marshal.dumps((index.FORMAT + 1, scanner, {})))
    assert index.read(str(path), scanner) is None
    assert index.read(str(tmp_path / "missing"), scanner) is None
    assert json.dumps(index._decode(b"garbage")) == "{}"
