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
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers_hook import OPTED_IN, PLAIN_CALL, REWRITTEN_CALL, Project, child_code, report

from jaxrewrite.hook import cache


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def _valid_pyc(pyc: str, source: Path) -> bool:
    with open(pyc, "rb") as file:
        return cache.unpack(file.read(), importlib.util.source_hash(source.read_bytes())) is not None


# --- the file format, in process ------------------------------------------------------------

CODE = compile("x = 1", "m.py", "exec")
HASH = importlib.util.source_hash(b"x = 1")


def test_pack_unpack_round_trip() -> None:
    data = cache.pack(CODE, HASH)
    assert data[:4] == importlib.util.MAGIC_NUMBER and data[4:8] == b"\x03\x00\x00\x00" and data[8:16] == HASH
    code = cache.unpack(data, HASH)
    assert code is not None and code.co_filename == "m.py"


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
    assert cache.unpack(damage(cache.pack(CODE, HASH)), HASH) is None


def test_unpack_rejects_other_source() -> None:
    assert cache.unpack(cache.pack(CODE, HASH), importlib.util.source_hash(b"x = 2")) is None


def test_cache_tag_is_alphanumeric_and_keyed_on_rewriter_and_level(monkeypatch: pytest.MonkeyPatch) -> None:
    tag = cache.cache_tag()
    assert tag is not None and tag.isalnum() and tag.endswith(f"o{sys.flags.optimize}")
    assert cache.cache_path("/x/m.py") == importlib.util.cache_from_source("/x/m.py", optimization=tag)
    import jaxrewrite.version

    monkeypatch.setattr(cache, "_rewriter_hash", None)
    monkeypatch.setattr(jaxrewrite.version, "__version__", "999")
    assert cache.cache_tag() != tag


def test_store_is_atomic_and_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "m.py"
    source.write_text("x = 1")
    pyc = str(tmp_path / "__pycache__" / "m.tag.pyc")
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert cache.store(pyc, CODE, HASH, str(source))
    assert cache.load(pyc, HASH, str(source)) is not None
    assert os.listdir(tmp_path / "__pycache__") == ["m.tag.pyc"]
    # An impossible folder (a file where the folder should be) is no error, just no cache.
    (tmp_path / "blocker").write_text("")
    assert not cache.store(str(tmp_path / "blocker" / "m.pyc"), CODE, HASH, str(source))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert not cache.store(str(tmp_path / "other.pyc"), CODE, HASH, str(source))
    assert not (tmp_path / "other.pyc").exists()


def test_load_points_code_at_the_moved_source(tmp_path: Path) -> None:
    pyc = tmp_path / "m.pyc"
    pyc.write_bytes(cache.pack(compile("def g(): pass", "/old/m.py", "exec"), HASH))
    code = cache.load(str(pyc), HASH, "/new/m.py")
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


def test_rewriter_hash_covers_what_determines_the_code(tmp_path: Path) -> None:
    """An edit to the engine (a subfolder), the pipelines or the version gives a new cache tag;
    an edit to a command or the run-time helpers does not (it cannot change cached code)."""
    copy = tmp_path / "jaxrewrite"
    shutil.copytree(cache.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    hashed = cache.package_sources(str(copy))
    assert "engine/plan.py" in hashed and "hook/pipeline.py" in hashed and "engine/migration.py" not in hashed
    before = cache.rewriter_hash(str(copy))
    assert before == cache.rewriter_hash(str(copy))
    for part, changes in [
        ("engine/plan.py", True),
        ("engine/table.py", True),
        ("hook/pipeline.py", True),
        ("integrations/pytest_plugin.py", True),
        ("version.py", True),
        ("commands/check.py", False),
        ("engine/migration.py", False),
        ("leaves.py", False),
    ]:
        target = copy / part
        original = target.read_bytes()
        target.write_bytes(original + b"\n# an edit\n")
        assert (cache.rewriter_hash(str(copy)) != before) is changes, part
        target.write_bytes(original)
    (copy / "engine" / "new_rule.py").write_text("X = 1\n")
    assert cache.rewriter_hash(str(copy)) != before


def test_every_module_a_rewrite_loads_is_hashed() -> None:
    """The hashed set is not a guess: rewrite modules that exercise every path of the engine in a
    fresh interpreter, and every engine module it loaded must be among the hashed files."""
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
        "loaded = sorted(m.__file__ for n, m in sys.modules.items() if n.startswith('jaxrewrite.engine'))\n"
        "print(json.dumps(loaded))\n"
    )
    golden = Path(__file__).resolve().parent.parent / "golden"
    inputs = [str(p) for group in ("leaves", "leaves_grad", "errors", "correctness", "callsites") for p in (golden / group).glob("*.py")]
    done = subprocess.run([sys.executable, "-c", code, *inputs], capture_output=True, text=True, check=True)
    import json

    loaded = {os.path.relpath(path, cache.PACKAGE).replace(os.sep, "/") for path in json.loads(done.stdout)}
    assert loaded and loaded <= set(cache.package_sources()), sorted(loaded - set(cache.package_sources()))


def test_cache_tag_names_the_optimisation_level_and_pipeline() -> None:
    tags = {cache.cache_tag(level, name) for level in (0, 1, 2) for name in ("", "pytest")}
    assert len(tags) == 6 and all(tag is not None and tag.isalnum() for tag in tags)
    assert cache.cache_tag() == cache.cache_tag(sys.flags.optimize)
