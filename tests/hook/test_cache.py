"""The rewritten-bytecode cache: file format and writing in process, the import-time behaviour in
children.

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

from jaxrewrite.hook import cachetag, pycfile


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def _valid_pyc(pyc: str, source: Path) -> bool:
    """Whether the hook would serve ``pyc`` for ``source`` as it is now."""
    path = str(source)
    return pycfile.load(pyc, path, os.stat(path), source.read_bytes) is not None


# --- the file format, in process ------------------------------------------------------------

CODE = compile("x = 1", "m.py", "exec")
HASH = pycfile.hash_key(b"x = 1")


def _source(tmp_path: Path, text: str = "x = 1") -> tuple[str, os.stat_result]:
    path = tmp_path / "m.py"
    path.write_text(text)
    return str(path), path.stat()


def test_pycs_are_cpythons_format_checked_by_mtime_and_size(tmp_path: Path) -> None:
    """Issue 51 item 4: the header is CPython's (magic, flags 0, mtime, size) and the hook checks
    it as importlib does: a later save or another size is stale."""
    path, st = _source(tmp_path)
    data = pycfile.pack(CODE, pycfile.stat_key(st))
    assert data[:4] == importlib.util.MAGIC_NUMBER and data[4:8] == b"\x00" * 4
    assert data[8:16] == int(st.st_mtime).to_bytes(4, "little") + st.st_size.to_bytes(4, "little")
    pyc = tmp_path / "m.pyc"
    pyc.write_bytes(data)
    assert (
        pycfile.load(str(pyc), path, st, lambda: pytest.fail("a timestamped pyc reads no source"))
        is not None
    )
    os.utime(path, (st.st_atime + 5, st.st_mtime + 5))
    assert pycfile.load(str(pyc), path, os.stat(path), bytes) is None
    Path(path).write_text("x = 22")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert pycfile.load(str(pyc), path, os.stat(path), bytes) is None


def test_hash_checked_pycs_where_the_user_chose_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``SOURCE_DATE_EPOCH`` (as py_compile): checked hash-based pycs, whose bytes decide."""
    path, st = _source(tmp_path)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1")
    key = pycfile.key_for(st, b"x = 1")
    assert key == HASH and key[:4] == b"\x03\x00\x00\x00"
    pyc = tmp_path / "m.pyc"
    pyc.write_bytes(pycfile.pack(CODE, key))
    assert pycfile.load(str(pyc), path, st, lambda: b"x = 1") is not None
    assert pycfile.load(str(pyc), path, st, lambda: b"x = 2") is None
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert pycfile.key_for(st, b"x = 1") == pycfile.stat_key(st)


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
        pytest.param(lambda d: d[:16] + marshal.dumps(42), id="not-code"),
        pytest.param(lambda d: d[: d.rindex(marshal.dumps(()))], id="no-footer"),
    ],
)
def test_load_rejects_damaged_files(tmp_path: Path, damage: Callable[[bytes], bytes]) -> None:
    path, st = _source(tmp_path)
    pyc = tmp_path / "m.pyc"
    pyc.write_bytes(damage(pycfile.pack(CODE, HASH)))
    assert pycfile.load(str(pyc), path, st, lambda: b"x = 1") is None


@pytest.mark.parametrize("prefix", [None, "/cache"])
@pytest.mark.parametrize("optimize,pipeline", [(0, ""), (2, ""), (1, "pytest0123456789ab")])
def test_the_pyc_is_named_as_importlib_names_it(
    monkeypatch: pytest.MonkeyPatch, prefix: str | None, optimize: int, pipeline: str
) -> None:
    monkeypatch.setattr(sys, "pycache_prefix", prefix)
    for source in ("/x/m.py", "x/m.py", "/x/ünï.py"):
        expected = importlib.util.cache_from_source(
            source, optimization=cachetag.cache_tag(optimize, pipeline)
        )
        assert cachetag.cache_path(source, optimize, pipeline) == expected


def test_cache_tag_is_alphanumeric_and_keyed_on_rewriter_and_level(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken = cachetag.cache_tag()
    assert taken is not None and taken.isalnum() and taken.endswith(f"o{sys.flags.optimize}")
    assert taken == f"jaxrewrite{cachetag.rewriter_hash()}o{sys.flags.optimize}"
    root = cachetag.PACKAGE
    assert cachetag.of_tree(root, "999") != cachetag.of_tree(root, jaxrewrite_version())


def jaxrewrite_version() -> str:
    from jaxrewrite.version import __version__

    return __version__


def test_a_checkout_digests_its_sources_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """No stat memo: the digest is taken once (the first opted-in import) and kept."""
    cachetag.rewriter_hash.cache_clear()
    first = cachetag.rewriter_hash()
    monkeypatch.setattr(cachetag, "of_tree", lambda *a: pytest.fail("hashed twice"))
    assert cachetag.rewriter_hash() == first


def test_store_is_atomic_and_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, st = _source(tmp_path)
    pyc = str(tmp_path / "__pycache__" / "m.tag.pyc")
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert pycfile.store(pyc, CODE, pycfile.stat_key(st), path)
    assert pycfile.load(pyc, path, st, bytes) is not None
    assert os.listdir(tmp_path / "__pycache__") == ["m.tag.pyc"]
    # An impossible folder (a file where the folder should be) is no error, just no cache.
    (tmp_path / "blocker").write_text("")
    assert not pycfile.store(str(tmp_path / "blocker" / "m.pyc"), CODE, HASH, path)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert not pycfile.store(str(tmp_path / "other.pyc"), CODE, HASH, path)
    assert not (tmp_path / "other.pyc").exists()


def test_load_points_code_at_the_moved_source(tmp_path: Path) -> None:
    path, st = _source(tmp_path)
    pyc = tmp_path / "m.pyc"
    pyc.write_bytes(
        pycfile.pack(compile("def g(): pass", "/old/m.py", "exec"), pycfile.stat_key(st))
    )
    code = pycfile.load(str(pyc), path, st, bytes)
    assert code is not None and code.co_filename == path
    inner = next(c for c in code.co_consts if hasattr(c, "co_filename"))
    assert inner.co_filename == path


# --- at import time, in child processes -----------------------------------------------------


def test_an_edit_is_seen_as_python_sees_it(project: Project) -> None:
    """The hook's pyc is checked as Python's own is (mtime in seconds, and size): an edit saved
    later or of another size is compiled afresh, exactly when a plain import would recompile."""
    path = project.write("mod.py", OPTED_IN.format(value=1))
    first = project.child("mod")
    assert first["value"] == 1 and first["jit"] == [REWRITTEN_CALL]
    stat = path.stat()
    path.write_text(OPTED_IN.format(value=2))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    second = project.child("mod")
    assert second["value"] == 2 and second["compiled"] == [str(path)]
    path.write_text(OPTED_IN.format(value=333))  # another size, the same second
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    third = project.child("mod")
    assert third["value"] == 333 and third["compiled"] == [str(path)]
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
def test_damaged_cache_file_is_ignored_and_replaced(
    project: Project, damage: Callable[[bytes], bytes]
) -> None:
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
            pytest.skip(
                "permission bits are not enforced for this user (root); see the prefix test"
            )
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


def test_every_module_a_rewrite_loads_is_hashed() -> None:
    """The hashed set is not a guess: rewrite modules that exercise every path of the engine in a
    fresh interpreter, and every engine module it loaded must be among the hashed files."""
    code = (
        "import sys, json, jaxrewrite\n"
        "from jaxrewrite.hook import pycfile\n"
        "from jaxrewrite.engine.build import build_analysis\n"
        "for name in sys.argv[1:]:\n"
        "    data = open(name, 'rb').read()\n"
        "    try:\n"
        "        pycfile.compile_source(data, name)\n"
        "    except SyntaxError:\n"
        "        pass\n"
        "loaded = sorted(m.__file__ for n, m in sys.modules.items() if "
        "n.startswith('jaxrewrite.engine'))\n"
        "print(json.dumps(loaded))\n"
    )
    golden = Path(__file__).resolve().parents[2] / "golden"
    inputs = [
        str(p)
        for group in ("leaves", "leaves_grad", "errors", "correctness", "callsites")
        for p in (golden / group).glob("*.py")
    ]
    done = subprocess.run(
        [sys.executable, "-c", code, *inputs], capture_output=True, text=True, check=True
    )
    import json

    loaded = {
        os.path.relpath(path, cachetag.PACKAGE).replace(os.sep, "/")
        for path in json.loads(done.stdout)
    }
    assert loaded and loaded <= set(cachetag.package_sources()), sorted(
        loaded - set(cachetag.package_sources())
    )


def test_cache_tag_names_the_optimisation_level_and_pipeline() -> None:
    tags = {cachetag.cache_tag(level, name) for level in (0, 1, 2) for name in ("", "pytest")}
    assert len(tags) == 6 and all(taken is not None and taken.isalnum() for taken in tags)
    assert cachetag.cache_tag() == cachetag.cache_tag(sys.flags.optimize)


def test_debug_trace_says_why_a_pyc_was_not_read_or_written(project: Project) -> None:
    """``JAXREWRITE_DEBUG=1`` (as pytest's ``state.trace``): each cache miss and failed write says
    why on stderr; without it, not a word."""
    project.write("mod.py", OPTED_IN.format(value=1))
    debug = project.env(JAXREWRITE_DEBUG="1")

    def stderr(env: dict[str, str]) -> list[str]:
        done = project.run(child_code("mod"), env=env)
        report(done)
        said = [line for line in done.stderr.splitlines() if line.startswith("jaxrewrite: ")]
        return [
            line for line in said if not line.startswith("jaxrewrite: hashed ")
        ]  # a checkout's tag

    assert stderr(project.env(PYTHONDONTWRITEBYTECODE="1")) == []  # no switch: silent
    first = stderr({**debug, "PYTHONDONTWRITEBYTECODE": "1"})
    assert any("sys.dont_write_bytecode" in line for line in first), first
    assert stderr(debug) == [] and project.rewritten_pycs()  # written this time: nothing to say
    assert stderr(debug) == []  # a hit: nothing to say
    (pyc,) = project.rewritten_pycs()
    Path(pyc).write_bytes(Path(pyc).read_bytes()[:10])
    assert any("pyc not used" in line and "stale" in line for line in stderr(debug))
    blocker = project.root / "blocker"
    blocker.write_text("not a folder")
    blocked = stderr({**debug, "PYTHONPYCACHEPREFIX": str(blocker / "prefix")})
    assert any("pyc not written" in line and str(blocker) in line for line in blocked), blocked
