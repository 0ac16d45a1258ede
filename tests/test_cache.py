"""The rewritten-bytecode cache: file format and writing in process, the import-time behaviour in children.

Every import-level case runs in a fresh interpreter (see helpers_hook) with bytecode writing on.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers_hook import OPTED_IN, PLAIN_CALL, REWRITTEN_CALL, Project, child_code, report

from jaxrewrite.hook import pycfile, tag


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def _valid_pyc(pyc: str, source: Path) -> bool:
    with open(pyc, "rb") as file:
        return pycfile.unpack(file.read(), importlib.util.source_hash(source.read_bytes())) is not None


# --- the file format, in process ------------------------------------------------------------

CODE = compile("x = 1", "m.py", "exec")
HASH = importlib.util.source_hash(b"x = 1")


def test_pack_unpack_round_trip() -> None:
    data = pycfile.pack(CODE, HASH)
    assert data[:4] == importlib.util.MAGIC_NUMBER and data[4:8] == b"\x03\x00\x00\x00" and data[8:16] == HASH
    code = pycfile.unpack(data, HASH)
    assert code is not None and code.co_filename == "m.py"


def test_the_memo_checks_each_file_once(package_copy: Path) -> None:
    """Every stat is paid by every process that imports an opted-in module: a file named both
    by both digests (``header.py``, the pragma rule, which the rewrite and the scanner read) is
    recorded, and statted, once."""
    memo = package_copy.parent / "memo"
    tag.digests(str(package_copy), memo=str(memo))
    _, _, _, stats, _ = marshal.loads(memo.read_bytes())
    names = [name for name, _, _, _ in stats]
    assert "header.py" in names and "engine" in names
    assert len(names) == len(set(names)), sorted(name for name in names if names.count(name) > 1)
    assert tag.package_sources(str(package_copy)).count("header.py") == 1


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda d: d[:-1], id="truncated-by-one"),
        pytest.param(lambda d: d[:17], id="truncated-in-code"),
        pytest.param(lambda d: d[:16], id="header-only"),
        pytest.param(lambda d: d[:9], id="truncated-header"),
        pytest.param(lambda d: b"", id="empty"),
        pytest.param(lambda d: d[:16] + b"\xff" * 40, id="garbage-code"),
        pytest.param(lambda d: b"\x00" * 4 + d[4:], id="bad-magic"),
        pytest.param(lambda d: d[:4] + b"\x01\x00\x00\x00" + d[8:], id="unchecked-hash-flags"),
        pytest.param(lambda d: d[:4] + b"\x00" * 12 + d[16:], id="timestamp-pyc"),
        pytest.param(lambda d: d[:16] + marshal.dumps(42), id="not-code"),
    ],
)
def test_unpack_rejects_damaged_files(damage: Callable[[bytes], bytes]) -> None:
    assert pycfile.unpack(damage(pycfile.pack(CODE, HASH)), HASH) is None


def test_unpack_rejects_other_source() -> None:
    assert pycfile.unpack(pycfile.pack(CODE, HASH), importlib.util.source_hash(b"x = 2")) is None


@pytest.mark.parametrize(
    "source", ["/x/m.py", "/m.py", "/x/y.z/m.py", "/x/a.b.py", "/x/.py", "/x/m.pyw", "m.py", "x/m.py", "/x//m.py", "/x/ünï.py", "/x/m.PY"]
)
@pytest.mark.parametrize("prefix", [None, "/cache"])
@pytest.mark.parametrize("optimize,pipeline", [(0, ""), (2, ""), (1, "pytest0123456789ab")])
def test_the_pyc_is_named_as_importlib_names_it(monkeypatch: pytest.MonkeyPatch, source: str, prefix: str | None, optimize: int, pipeline: str) -> None:
    """``cache_path`` spells the common case itself (the warm path names a pyc per import): every
    spelling gives importlib's name, under a ``pycache_prefix`` too."""
    monkeypatch.setattr(sys, "pycache_prefix", prefix)
    expected = importlib.util.cache_from_source(source, optimization=tag.cache_tag(optimize, pipeline))
    assert tag.cache_path(source, optimize, pipeline) == expected


def test_cache_tag_is_alphanumeric_and_keyed_on_rewriter_and_level(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = tag.cache_tag()
    assert taken is not None and taken.isalnum() and taken.endswith(f"o{sys.flags.optimize}")
    assert tag.cache_path("/x/m.py") == importlib.util.cache_from_source("/x/m.py", optimization=taken)
    import jaxrewrite.version

    monkeypatch.setattr(tag, "_rewriter_hash", None)
    monkeypatch.setattr(tag, "_scanner_hash", None)
    monkeypatch.setattr(tag, "_record", None)
    monkeypatch.setattr(jaxrewrite.version, "__version__", "999")
    assert tag.cache_tag() != taken


def test_store_is_atomic_and_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "m.py"
    source.write_text("x = 1")
    pyc = str(tmp_path / "__pycache__" / "m.tag.pyc")
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert pycfile.store(pyc, CODE, HASH, str(source))
    assert pycfile.load(pyc, HASH, str(source)) is not None
    assert os.listdir(tmp_path / "__pycache__") == ["m.tag.pyc"]
    # An impossible folder (a file where the folder should be) is no error, just no cache.
    (tmp_path / "blocker").write_text("")
    assert not pycfile.store(str(tmp_path / "blocker" / "m.pyc"), CODE, HASH, str(source))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert not pycfile.store(str(tmp_path / "other.pyc"), CODE, HASH, str(source))
    assert not (tmp_path / "other.pyc").exists()


def test_load_points_code_at_the_moved_source(tmp_path: Path) -> None:
    pyc = tmp_path / "m.pyc"
    pyc.write_bytes(pycfile.pack(compile("def g(): pass", "/old/m.py", "exec"), HASH))
    code = pycfile.load(str(pyc), HASH, "/new/m.py")
    assert code is not None and code.co_filename == "/new/m.py"
    if hasattr(__import__("_imp"), "_fix_co_filename"):
        inner = next(c for c in code.co_consts if hasattr(c, "co_filename"))
        assert inner.co_filename == "/new/m.py"


# --- at import time, in child processes -----------------------------------------------------


def test_same_size_edit_in_the_same_second_is_seen(project: Project) -> None:
    path = project.write("mod.py", OPTED_IN.format(value=1))
    assert project.child("mod", hook=False)["value"] == 1  # a plain, timestamp-checked pyc too
    first = project.child("mod")
    assert first["value"] == 1 and first["jit"] == [REWRITTEN_CALL]
    stat = path.stat()
    path.write_text(OPTED_IN.format(value=2))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns

    # The control: the mtime+size check of a plain pyc cannot see this edit ...
    assert project.child("mod", hook=False)["value"] == 1
    # ... the hook's hash-checked pyc does.
    second = project.child("mod")
    assert second["value"] == 2 and second["compiled"] == [str(path)]
    assert len(project.rewritten_pycs()) == 1 and _valid_pyc(project.rewritten_pycs()[0], path)


def test_plain_and_rewritten_bytecode_never_mix(project: Project) -> None:
    path = project.write("mod.py", OPTED_IN.format(value=1))
    plain_pyc = Path(importlib.util.cache_from_source(str(path)))

    hooked = project.child("mod")
    assert hooked["jit"] == [REWRITTEN_CALL] and hooked["loader"] == "RewritingLoader"
    assert hooked["cached"] == project.rewritten_pycs()[0]
    assert not plain_pyc.exists(), "the hook wrote the normal pyc"

    plain = project.child("mod", hook=False)
    assert plain["jit"] == [PLAIN_CALL] and plain["loader"] == "SourceFileLoader"
    assert plain_pyc.exists()

    # Both files now exist; each kind of import keeps to its own.
    assert project.child("mod", hook=False)["jit"] == [PLAIN_CALL]
    again = project.child("mod")
    assert again["jit"] == [REWRITTEN_CALL] and again["compiled"] == []


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda d: d[: len(d) // 2], id="truncated"),
        pytest.param(lambda d: os.urandom(len(d)), id="garbage"),
        pytest.param(lambda d: b"", id="empty"),
    ],
)
def test_damaged_cache_file_is_ignored_and_replaced(project: Project, damage: Callable[[bytes], bytes]) -> None:
    path = project.write("mod.py", OPTED_IN.format(value=1))
    project.child("mod")
    (pyc,) = project.rewritten_pycs()
    Path(pyc).write_bytes(damage(Path(pyc).read_bytes()))
    assert not _valid_pyc(pyc, path)

    result = project.child("mod")
    assert result["jit"] == [REWRITTEN_CALL] and result["compiled"] == [str(path)]
    assert project.rewritten_pycs() == [pyc] and _valid_pyc(pyc, path)
    assert project.child("mod")["compiled"] == []


def test_unwritable_pycache_prefix_still_imports(project: Project) -> None:
    # Root ignores permission bits, so "read-only" is made of something root cannot get round
    # either: the prefix lies under a regular file, so no folder can ever be made there.
    project.write("mod.py", OPTED_IN.format(value=1))
    blocker = project.root / "blocker"
    blocker.write_text("not a folder")
    env = project.env(PYTHONPYCACHEPREFIX=str(blocker / "prefix"))
    for _ in range(2):
        result = project.child("mod", env=env)
        assert result["jit"] == [REWRITTEN_CALL] and result["compiled"]
        assert result["cached"].startswith(str(blocker / "prefix"))
    assert blocker.read_text() == "not a folder"
    assert project.rewritten_pycs() == [] and not (project.src / "__pycache__").exists()


def test_read_only_pycache_folder_still_imports(project: Project) -> None:
    path = project.write("mod.py", OPTED_IN.format(value=1))
    pycache = project.src / "__pycache__"
    pycache.mkdir()
    pycache.chmod(0o555)
    try:
        if os.access(pycache, os.W_OK):
            pytest.skip("permission bits are not enforced for this user (root); see the prefix test")
        result = project.child("mod")
        assert result["jit"] == [REWRITTEN_CALL] and os.listdir(pycache) == []
    finally:
        pycache.chmod(0o755)
    assert path.exists()


def test_sys_prefix_cache_is_used(project: Project) -> None:
    path = project.write("mod.py", OPTED_IN.format(value=1))
    prefix = project.root / "prefix"
    env = project.env(PYTHONPYCACHEPREFIX=str(prefix))
    project.child("mod", env=env)
    (pyc,) = [str(p) for p in prefix.rglob("*.opt-jaxrewrite*.pyc")]
    assert _valid_pyc(pyc, path) and not (project.src / "__pycache__").exists()
    assert project.child("mod", env=env)["compiled"] == []


def test_dont_write_bytecode_reads_but_never_writes(project: Project) -> None:
    project.write("mod.py", OPTED_IN.format(value=1))
    quiet = project.env(PYTHONDONTWRITEBYTECODE="1")
    assert project.child("mod", env=quiet)["jit"] == [REWRITTEN_CALL]
    assert project.rewritten_pycs() == []
    project.child("mod")  # writes
    assert project.child("mod", env=quiet)["compiled"] == []  # and a non-writing run still reads it


def test_optimised_and_normal_runs_do_not_share_bytecode(project: Project) -> None:
    project.write("mod.py", OPTED_IN.format(value=1))
    normal = project.child("mod")
    optimised = project.child("mod", "-O")
    assert (normal["debug"], optimised["debug"]) == (True, False)
    assert optimised["compiled"] and optimised["jit"] == [REWRITTEN_CALL]
    assert len(project.rewritten_pycs()) == 2 and normal["cached"] != optimised["cached"]
    again = project.child("mod")
    assert again["debug"] is True and again["compiled"] == []


def test_two_processes_writing_the_same_new_module(project: Project) -> None:
    path = project.write("mod.py", OPTED_IN.format(value=1))
    # Each child sleeps between compiling and writing, so both miss the cache and both write.
    children = [project.popen(child_code("mod", slow=0.5)) for _ in range(2)]
    results = []
    for proc in children:
        out, err = proc.communicate(timeout=120)
        results.append(report(subprocess.CompletedProcess(proc.args, proc.returncode, out, err)))
    assert all(r["jit"] == [REWRITTEN_CALL] and r["compiled"] == [str(path)] for r in results)
    (pyc,) = project.rewritten_pycs()
    assert os.listdir(project.src / "__pycache__") == [os.path.basename(pyc)]  # no temp files left
    assert _valid_pyc(pyc, path)
    assert project.child("mod")["compiled"] == []


def test_moved_module_keeps_its_cache_and_reports_its_new_path(project: Project) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/mod.py", OPTED_IN.format(value=1))
    assert project.child("pkg.mod")["compiled"]
    moved = project.root / "moved"
    shutil.move(str(project.src), str(moved))
    env = project.env()
    env["PYTHONPATH"] = env["PYTHONPATH"].replace(str(project.src), str(moved))
    result = project.child("pkg.mod", env=env)
    assert result["compiled"] == [] and result["co_filename"] == str(moved / "pkg" / "mod.py")


@pytest.fixture
def package_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the package, its files a minute old (a memo can record them at once), in a
    process that may write bytecode (this environment sets PYTHONDONTWRITEBYTECODE)."""
    copy = tmp_path / "jaxrewrite"
    shutil.copytree(tag.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    _age(copy)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return copy


def _same_size_edit(path: Path) -> None:
    text = path.read_bytes()
    edited = text[:-1] + (b" " if text[-1:] != b" " else b"\n")
    assert len(edited) == len(text) and edited != text
    path.write_bytes(edited)


def _age(root: Path, seconds: int = 60) -> None:
    """Every file under ``root`` last modified ``seconds`` ago: settled, so a memo records it."""
    then = time.time_ns() - seconds * 1_000_000_000
    for path in [root, *root.rglob("*")]:
        os.utime(path, ns=(then, then))


@pytest.mark.parametrize("memoised", [False, True], ids=["hashed", "through-the-memo"])
def test_rewriter_hash_covers_what_determines_the_code(package_copy: Path, memoised: bool) -> None:
    """An edit to the engine (a subfolder), the pipelines or the version gives a new cache tag;
    an edit to a command or the run-time helpers does not (it cannot change cached code). The
    same through the stat memo every process uses: each edit is seen, each revert too."""
    copy = package_copy
    memo = str(copy.parent / "memo") if memoised else None

    def rewriter() -> str:
        return tag.digests(str(copy), memo=memo).rewriter

    hashed = tag.package_sources(str(copy))
    assert "engine/edits/plan.py" in hashed and "hook/pipeline.py" in hashed and "migrate/plan.py" not in hashed
    before = rewriter()
    assert before == rewriter() == tag.rewriter_hash(str(copy))
    assert (copy.parent / "memo").exists() is memoised
    for part, changes in [
        ("engine/edits/plan.py", True),
        ("engine/rulebook/table.py", True),
        ("hook/pipeline.py", True),
        ("hook/fast/skeleton.py", True),
        ("hook/tag.py", True),
        ("hook/pycfile.py", True),
        ("integrations/pytest_plugin.py", True),
        ("version.py", True),
        ("commands/check.py", False),
        ("migrate/plan.py", False),
        ("leaves.py", False),
        ("hook/finder.py", False),  # the scanner's (see the next test), not the rewriter's
    ]:
        target = copy / part
        original = target.read_bytes()
        target.write_bytes(original + b"\n# an edit\n")
        assert (rewriter() != before) is changes, part
        target.write_bytes(original)
        assert rewriter() == before, part
    (copy / "engine" / "new_rule.py").write_text("X = 1\n")
    assert rewriter() != before


def test_scanner_hash_covers_the_pragma_scanner_and_what_applies_it(package_copy: Path) -> None:
    """The folder indexes are keyed by the scanner digest: it moves with the scanner
    (``header.py``), the finder and the index, not with the rest of the engine."""
    before = tag.digests(str(package_copy), memo=None)
    for part, scanner, rewriter in [
        ("header.py", True, True),
        ("hook/finder.py", True, False),
        ("hook/index.py", True, False),
        ("version.py", True, True),
        ("engine/edits/plan.py", False, True),
        ("hook/tag.py", False, True),
        ("hook/pycfile.py", False, True),
    ]:
        target = package_copy / part
        original = target.read_bytes()
        target.write_bytes(original + b"\n# an edit\n")
        after = tag.digests(str(package_copy), memo=None)
        assert (after.scanner != before.scanner, after.rewriter != before.rewriter) == (scanner, rewriter), part
        target.write_bytes(original)


def test_a_same_size_edit_with_a_new_mtime_changes_the_tag(package_copy: Path) -> None:
    """The memo trusts each file's (mtime_ns, size), as Python trusts them (in whole seconds) to
    run an engine module's own pyc: a same-size edit is seen through its new mtime."""
    memo = str(package_copy.parent / "memo")
    before = tag.digests(str(package_copy), memo=memo)
    assert os.path.exists(memo)
    target = package_copy / "engine" / "edits" / "plan.py"
    stat = target.stat()
    _same_size_edit(target)
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000))  # one microsecond later
    assert target.stat().st_size == stat.st_size
    after = tag.digests(str(package_copy), memo=memo)
    assert after.rewriter != before.rewriter and after.scanner == before.scanner
    assert after == tag.digests(str(package_copy), memo=None)  # what hashing the files gives

    # The control, as in test_same_size_edit_in_the_same_second_is_seen: an edit that keeps the
    # size and restores the exact mtime is not seen (nor would Python see it in plan.py's pyc).
    settled = package_copy / "engine" / "rulebook" / "table.py"
    stat = settled.stat()
    _same_size_edit(settled)
    os.utime(settled, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert tag.digests(str(package_copy), memo=memo) == after
    assert tag.digests(str(package_copy), memo=None) != after


def test_the_memo_spares_reading_the_sources(package_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memo = str(package_copy.parent / "memo")
    first = tag.digests(str(package_copy), memo=memo)
    read: list[str] = []
    real = tag._read

    def reading(path: str) -> bytes:
        read.append(path)
        return real(path)

    monkeypatch.setattr(tag, "_read", reading)
    assert tag.digests(str(package_copy), memo=memo) == first
    assert read == []  # not one source: the stats matched


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda d: d[: len(d) // 2], id="truncated"),
        pytest.param(lambda d: b"\x00" * 8, id="garbage"),
        pytest.param(lambda d: b"", id="empty"),
        pytest.param(lambda d: marshal.dumps((2, "0.1.0", -1, [("x", "y")], ("a", "b"))), id="wrong-shapes"),
        pytest.param(
            lambda d: marshal.dumps(
                (tag._MEMO_FORMAT, __import__("jaxrewrite").__version__, -1, (("x", 1),), ("0" * 16, "0" * 16))
            ),
            id="short-stat",
        ),
        pytest.param(lambda d: marshal.dumps(42), id="not-a-record"),
        pytest.param(
            lambda d: marshal.dumps((tag._MEMO_FORMAT, __import__("jaxrewrite").__version__, -1, (), ("0" * 16, "0" * 16))),
            id="checks-nothing",
        ),
    ],
)
def test_a_damaged_memo_is_ignored_and_replaced(package_copy: Path, damage: Callable[[bytes], bytes]) -> None:
    memo = package_copy.parent / "memo"
    expected = tag.digests(str(package_copy), memo=None)
    assert tag.digests(str(package_copy), memo=str(memo)) == expected
    memo.write_bytes(damage(memo.read_bytes()))
    assert tag.digests(str(package_copy), memo=str(memo)) == expected
    record = tag._from_memo(str(memo), str(package_copy), __import__("jaxrewrite").__version__)
    assert record is not None and record.digests == expected


def test_the_memo_is_not_written_for_files_just_edited(package_copy: Path) -> None:
    """A file modified in the last RACY_NS could be written again within the same timestamp tick
    with the same size: such stats are not memoised (git's racily clean index entries)."""
    memo = package_copy.parent / "memo"
    (package_copy / "engine" / "edits" / "plan.py").write_bytes((package_copy / "engine" / "edits" / "plan.py").read_bytes() + b"\n")
    tag.digests(str(package_copy), memo=str(memo))
    assert not memo.exists()
    _age(package_copy)
    tag.digests(str(package_copy), memo=str(memo))
    assert memo.exists()


def test_the_memo_belongs_to_one_version(package_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memo = str(package_copy.parent / "memo")
    before = tag.digests(str(package_copy), memo=memo)
    import jaxrewrite.version

    monkeypatch.setattr(jaxrewrite.version, "__version__", "999")
    after = tag.digests(str(package_copy), memo=memo)
    assert after.rewriter != before.rewriter and after.scanner != before.scanner


def test_one_memo_serves_every_python_the_same_digests(package_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The memo is one file, shared by every Python that imports the tree (tox envs, the floor
    and newest legs on one checkout). The digests are ``blake2b``'s, the same for every Python
    (``source_hash``, keyed by the magic number, once gave each its own): another interpreter
    reads the same digests from the memo, and hashes nothing."""
    memo = str(package_copy.parent / "memo")
    ours = tag.digests(str(package_copy), memo=memo)
    read: list[str] = []
    real = tag._read
    monkeypatch.setattr(tag, "_read", lambda path: read.append(path) or real(path))
    with monkeypatch.context() as other:
        other.setattr(importlib.util, "_RAW_MAGIC_NUMBER", 0x5A5A | 0x0A0D0000)
        assert tag.digests(str(package_copy), memo=None) == ours and read  # hashing gives the same
        read.clear()
        assert tag.digests(str(package_copy), memo=memo) == ours and read == []  # and so does the memo


def test_the_memo_of_the_installed_package_lives_in_its_pycache() -> None:
    memo = tag.memo_path()
    assert memo is not None and os.path.basename(memo) == tag.MEMO_NAME and not memo.endswith(".pyc")
    pyc = importlib.util.cache_from_source(os.path.join(tag.PACKAGE, "hook", "tag.py"))
    assert os.path.dirname(memo) == os.path.dirname(pyc)


def test_a_process_hashes_its_rewriter_once_then_only_stats_it(project: Project) -> None:
    """In children (the memo is per installation): the first one writes the memo, the next ones
    read no jaxrewrite source to find the tag; both get the same tag."""
    prefix = project.root / "prefix"  # the memo goes with the pycs: a fresh place for this test
    env = project.env(PYTHONPYCACHEPREFIX=str(prefix))
    code = (
        "import json, sys, jaxrewrite\n"
        "from jaxrewrite.hook import pycfile, tag\n"
        "opened = []\n"
        "sys.addaudithook(lambda e, a: opened.append(str(a[0])) if e == 'open' else None)\n"
        "taken = tag.cache_tag()\n"
        "print(json.dumps([taken, [p for p in opened if p.startswith(tag.PACKAGE) and p.endswith('.py')]]))\n"
    )
    found: Any = report(project.run(code, env=env))
    first_tag, first_read = found
    memo = [str(p) for p in prefix.rglob(tag.MEMO_NAME)]
    if not memo:
        pytest.skip("jaxrewrite's own sources were edited in the last seconds: no memo yet")
    assert first_read  # it hashed them
    found = report(project.run(code, env=env))
    assert found == [first_tag, []]


def test_code_rewritten_after_the_rewriter_changed_is_not_stored_under_the_old_tag(project: Project) -> None:
    """A long-lived process takes its tag once; if the rewriter on disk has changed since (the
    process stands in for that with a tag no rewriter has), what it rewrites now would carry the
    new rewriter's output under the old name: it is used, never stored."""
    path = project.write("mod.py", OPTED_IN.format(value=1))
    code = (
        "import json, jaxrewrite, jax\n"
        "from jaxrewrite.hook import pycfile, tag\n"
        "tag.scanner_hash()\n"
        "tag._rewriter_hash = '0' * 16\n"
        "jaxrewrite.install()\n"
        "import mod\n"
        "print(json.dumps([jax.CALLS, mod.__spec__.cached]))\n"
    )
    found: Any = report(project.run(code))
    calls, cached = found
    assert calls == [REWRITTEN_CALL] and "jaxrewrite0000000000000000" in cached
    assert project.rewritten_pycs() == [] and path.exists()
    assert project.child("mod")["compiled"] == [str(path)]  # the real tag: written this time
    assert len(project.rewritten_pycs()) == 1


def test_every_module_a_rewrite_loads_is_hashed() -> None:
    """The hashed set is not a guess: rewrite modules that exercise every path of the engine in a
    fresh interpreter, and every engine module it loaded (and the fast route's, hook/fast) must be among the hashed files."""
    code = (
        "import sys, json, jaxrewrite\n"
        "from jaxrewrite.hook import pipeline\n"
        "from jaxrewrite.engine.analyze import analyze\n"
        "for name in sys.argv[1:]:\n"
        "    data = open(name, 'rb').read()\n"
        "    try:\n"
        "        pipeline.compile_source(data, name)\n"
        "    except SyntaxError:\n"
        "        pass\n"
        "loaded = sorted(m.__file__ for n, m in sys.modules.items() if n.startswith(('jaxrewrite.engine', 'jaxrewrite.hook.fast')))\n"
        "print(json.dumps(loaded))\n"
    )
    golden = Path(__file__).resolve().parent.parent / "golden"
    inputs = [str(p) for group in ("leaves", "leaves_grad", "errors", "correctness", "callsites") for p in (golden / group).glob("*.py")]
    done = subprocess.run([sys.executable, "-c", code, *inputs], capture_output=True, text=True, check=True)
    import json

    loaded = {os.path.relpath(path, tag.PACKAGE).replace(os.sep, "/") for path in json.loads(done.stdout)}
    assert loaded and loaded <= set(tag.package_sources()), sorted(loaded - set(tag.package_sources()))


def test_cache_tag_names_the_optimisation_level_and_pipeline() -> None:
    tags = {tag.cache_tag(level, name) for level in (0, 1, 2) for name in ("", "pytest")}
    assert len(tags) == 6 and all(taken is not None and taken.isalnum() for taken in tags)
    assert tag.cache_tag() == tag.cache_tag(sys.flags.optimize)


def test_debug_trace_says_why_a_pyc_was_not_read_or_written(project: Project) -> None:
    """``JAXREWRITE_DEBUG=1`` (as pytest's ``state.trace``): each cache miss and failed write says
    why on stderr; without it, not a word."""
    path = project.write("mod.py", OPTED_IN.format(value=1))
    debug = project.env(JAXREWRITE_DEBUG="1")

    def stderr(env: dict[str, str]) -> list[str]:
        done = project.run(child_code("mod"), env=env)
        report(done)
        return [line for line in done.stderr.splitlines() if line.startswith("jaxrewrite: ")]

    assert stderr(project.env(PYTHONDONTWRITEBYTECODE="1")) == []  # no switch: silent
    first = stderr({**debug, "PYTHONDONTWRITEBYTECODE": "1"})
    assert any("pyc not read for" in line and str(path) in line for line in first), first
    assert any("sys.dont_write_bytecode" in line for line in first), first
    assert stderr(debug) and project.rewritten_pycs()  # written this time
    assert stderr(debug) == []  # a hit: nothing to say
    (pyc,) = project.rewritten_pycs()
    Path(pyc).write_bytes(Path(pyc).read_bytes()[:10])
    assert any("pyc not used" in line and "truncated" in line for line in stderr(debug))
    blocker = project.root / "blocker"
    blocker.write_text("not a folder")
    blocked = stderr({**debug, "PYTHONPYCACHEPREFIX": str(blocker / "prefix")})
    assert any(line.startswith(f"jaxrewrite: not written: {blocker}") for line in blocked), blocked


def test_a_future_dated_install_is_memoised_until_the_clock_nears_its_dates(
    package_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files dated ahead (an archive unpacked with future dates, a skewed clock) are memoised: a
    write can reproduce such an mtime only once the clock reaches it. Until then every process
    uses the memo; from RACY_NS before it, the sources are hashed again (and later memoised as
    settled). Before: the racy-time rule forbade the memo for ever, and every process re-hashed."""
    ahead = time.time_ns() + 3600 * 1_000_000_000
    for path in [package_copy, *package_copy.rglob("*")]:
        os.utime(path, ns=(ahead, ahead))
    memo = package_copy.parent / "memo"
    first = tag.digests(str(package_copy), memo=str(memo))
    assert memo.exists()
    read: list[str] = []
    real = tag._read
    monkeypatch.setattr(tag, "_read", lambda path: read.append(path) or real(path))
    assert tag.digests(str(package_copy), memo=str(memo)) == first
    assert read == []
    now = time.time_ns
    monkeypatch.setattr(tag.time, "time_ns", lambda: now() + 3600 * 1_000_000_000 - tag.RACY_NS // 2)
    assert tag.digests(str(package_copy), memo=str(memo)) == first
    assert read  # the clock is near the dates: the memo no longer vouches for them


def test_a_memo_is_keyed_by_inode_too(package_copy: Path) -> None:
    """A file replaced by another of the same size and mtime (``cp -p``, an unpacked archive) is
    a new inode: the memo does not vouch for it."""
    memo = str(package_copy.parent / "memo")
    before = tag.digests(str(package_copy), memo=memo)
    target = package_copy / "engine" / "edits" / "plan.py"
    stat = target.stat()
    text = target.read_bytes()
    edited = text[:-1] + (b" " if text[-1:] != b" " else b"\n")
    folder = target.parent.stat()
    replacement = package_copy.parent / "plan.py"
    replacement.write_bytes(edited)
    os.utime(replacement, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    os.replace(replacement, target)  # a new inode, made while the old one still existed
    os.utime(target.parent, ns=(folder.st_atime_ns, folder.st_mtime_ns))
    assert target.stat().st_ino != stat.st_ino and target.stat().st_mtime_ns == stat.st_mtime_ns
    assert tag.digests(str(package_copy), memo=memo) != before


def test_tag_is_current_rechecks_stats_without_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each stored module asks whether the rewriter changed since the tag was taken: that is the
    process's own record re-statted, never a re-hash (a read-only install has no memo)."""
    for name in ("_rewriter_hash", "_scanner_hash", "_record"):
        monkeypatch.setattr(tag, name, None)
    tag.cache_tag()
    if tag._record is None:
        pytest.skip("jaxrewrite's own sources were edited in the last seconds: no settled record")
    monkeypatch.setattr(tag, "_read", lambda path: pytest.fail(f"re-hashed: {path}"))
    monkeypatch.setattr(tag, "_read_small", lambda path: pytest.fail(f"memo re-read: {path}"))
    assert tag.tag_is_current() and tag.tag_is_current()
