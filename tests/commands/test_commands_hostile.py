"""jaxrewrite's own commands (show, check, migrate, compile) on hostile terminals and inputs: a
reader that stops early, a stdout that cannot encode the source, a module nested deeper than a
parser goes. Each ends with a report and a status, never a traceback from inside jaxrewrite;
a program the runner runs keeps its own behaviour, as under ``python``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from prewarmed import Prewarmed
from support import child_env as env
from support import jaxrewrite, python


def _into_closed_pipe(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python argv`` with stdout a pipe whose reader is gone (``| head`` once it has read)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, *argv],
            cwd=cwd,
            env=env(),
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write)


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "big.py"],
        ["show", "--diff", "big.py", "big.py"],
        ["check", "lint.py"],
        ["check", "--format", "json", "lint.py"],
        ["migrate", "mig.py"],
        ["compile", "big.py", "lint.py"],
        ["--help"],
    ],
    ids=lambda argv: " ".join(argv),
)
def test_a_reader_that_stops_early_ends_a_command_quietly(tmp_path: Path, argv: list[str]) -> None:
    """``jaxrewrite show big.py | head``: no traceback from inside jaxrewrite, and the status a
    shell gives ``cat`` there (141), which none of the commands' own statuses is."""
    rows = range(50)  # the reader is gone before the first write, so any output fails
    (tmp_path / "big.py").write_text(
        "# jaxrewrite: enable\nimport jax\nfrom jaxrewrite import Static\n"
        + "".join(f"@jax.jit\ndef f{i}(x, n: Static[int]):\n    return x * n\n" for i in rows)
    )
    (tmp_path / "lint.py").write_text(
        "# jaxrewrite: enable\nfrom jaxrewrite import Static\n"
        + "".join(f"def h{i}(x, n: Static[int]):\n    return x\n" for i in rows)
    )
    (tmp_path / "mig.py").write_text(
        "import jax\nfrom functools import partial\n"
        + "".join(
            f"@partial(jax.jit, static_argnums=(1,))\ndef g{i}(x, n):\n    return x * n\n"
            for i in rows
        )
    )
    done = _into_closed_pipe(["-m", "jaxrewrite", *argv], tmp_path)
    assert (done.returncode, done.stderr) == (141, ""), done.stderr[-3000:]


def test_a_programs_own_broken_pipe_is_as_under_python(tmp_path: Path) -> None:
    """The runner leaves the program's output to the program: same status, same traceback."""
    (tmp_path / "loud.py").write_text("for i in range(100000):\n    print(i)\n")
    plain, ours = (
        _into_closed_pipe([*runner, "loud.py"], tmp_path) for runner in ([], ["-m", "jaxrewrite"])
    )
    assert ours.returncode == plain.returncode == 1
    assert ours.stderr == plain.stderr and plain.stderr.rstrip().endswith(
        "BrokenPipeError: [Errno 32] Broken pipe"
    ), (plain.stderr, ours.stderr)


def _bytes_out(argv: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "jaxrewrite", *argv],
        cwd=cwd,
        env=env(**extra),
        capture_output=True,
        timeout=120,
        check=False,
    )


def test_a_terminal_without_the_sources_characters_gets_escaped_messages_and_exact_source(
    tmp_path: Path,
) -> None:
    """An ASCII-only stdout (``PYTHONIOENCODING=ascii``, a C locale without UTF-8 mode): findings
    name the identifier escaped, as Python's stderr does; source text and diffs are the file's
    own bytes. Each of these crashed with UnicodeEncodeError inside jaxrewrite."""
    (tmp_path / "lint.py").write_text(
        "# jaxrewrite: enable\nfrom jaxrewrite import Static\n"
        "def hé(x, n: Static[int]):\n    return x\n",
        encoding="utf-8",
    )
    (tmp_path / "mig.py").write_text(
        "import jax\nfrom functools import partial\n"
        "@partial(jax.jit, static_argnums=(1,))\ndef gé(x, n):\n    return x * n\n",
        encoding="utf-8",
    )
    for argv, status, needle in [
        (["check", "lint.py"], 1, b"of 'h\\xe9' does nothing"),
        (["check", "--format", "github", "lint.py"], 1, b"h\\xe9"),
        (["check", "--format", "json", "lint.py"], 1, b"h\\u00e9"),
        (["migrate", "mig.py"], 1, "+def gé(x, n: Static):".encode()),
        (["show", "lint.py", "mig.py"], 0, "def hé(x, n: Static[int]):".encode()),
        (["show", "--diff", "lint.py"], 0, b""),
    ]:
        done = _bytes_out(argv, tmp_path, PYTHONIOENCODING="ascii")
        assert (done.returncode, b"Traceback" in done.stderr) == (status, False), (
            argv,
            done.stderr[-2000:],
        )
        assert needle in done.stdout, (argv, done.stdout[-2000:])


def test_a_migrate_diff_is_in_the_files_encoding_and_applies(tmp_path: Path) -> None:
    """A Latin-1 module's diff carries its Latin-1 bytes (a diff is bytes, as git's is), so
    ``patch`` applied to the original gives exactly what ``migrate --write`` writes."""
    text = (
        "# -*- coding: latin-1 -*-\nimport jax\nfrom functools import partial\n# café\n"
        "@partial(jax.jit, static_argnums=(1,))\ndef g(x, n):\n    return x * n\n"
    )
    (tmp_path / "m.py").write_bytes(text.encode("latin-1"))
    done = _bytes_out(["migrate", "m.py"], tmp_path)
    assert done.returncode == 1 and "# café".encode("latin-1") in done.stdout, done.stdout
    patched = tmp_path / "patched"
    patched.mkdir()
    (patched / "m.py").write_bytes(text.encode("latin-1"))
    subprocess.run(["patch", "-p1", "-s"], input=done.stdout, cwd=patched, check=True, timeout=60)
    assert _bytes_out(["migrate", "--write", "m.py"], tmp_path).returncode == 1
    assert (
        (patched / "m.py").read_bytes()
        == (tmp_path / "m.py").read_bytes()
        != text.encode("latin-1")
    )


#: Modules deeper than a parser goes: a generated sum Python compiles (on every version) but a
#: tree object of it does not compile below 3.13; a sum too deep for 3.10-3.12's parser
#: (RecursionError; 3.13 compiles it); a chain no parser takes (MemoryError on every version).
DEEP = {
    "sum2500": "return " + " + ".join(["x"] * 2500) + " + n",
    "sum5000": "return " + " + ".join(["x"] * 5000) + " + n",
    "unary20000": "return " + "-" * 20000 + "x",
}


def _deep_module(body: str, by_hand: bool = False) -> str:
    """The opted-in module, or (``by_hand``) the same program written with ``static_argnums``."""
    if by_hand:
        return (
            "from functools import partial\nimport jax\n\n\n"
            f"@partial(jax.jit, static_argnums=(1,))\ndef f(x, n):\n    {body}\n\n\n"
            "print(f(1.0, 3))\n"
        )
    return (
        "# jaxrewrite: enable\nfrom jaxrewrite import Static\nimport jax\n\n\n@jax.jit\n"
        f"def f(x, n: Static[int]):\n    {body}\n\n\nprint(f(1.0, 3))\n"
    )


def _compiles(path: Path) -> bool:
    """Does ``python`` compile it? Asked of a fresh interpreter, as the commands run: how deep
    the parser goes depends on how deep the caller's stack already is."""
    probe = f"compile(open({str(path)!r}).read(), 'deep.py', 'exec')"
    return (
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, timeout=120, check=False
        ).returncode
        == 0
    )


@pytest.mark.parametrize("kind", list(DEEP))
def test_a_module_deeper_than_a_parser_goes_is_reported_or_handled_as_python_would(
    tmp_path: Path, kind: str
) -> None:
    """What Python compiles, each command handles (show prints it, check passes it, compile
    writes its cache); what Python's parser gives up on is a located SyntaxError (JR100 in
    check), the file skipped, never a RecursionError or MemoryError traceback from jaxrewrite."""
    text = _deep_module(DEEP[kind])
    (tmp_path / "deep.py").write_text(text)
    (tmp_path / "hand.py").write_text(_deep_module(DEEP[kind], by_hand=True))
    python_compiles = _compiles(tmp_path / "deep.py")
    runs = {
        ("show", "deep.py"): 0,
        ("check", "deep.py"): 0,
        ("compile", "deep.py"): 0,
        ("migrate", "hand.py"): 1,
    }
    for argv, ok in runs.items():
        done = subprocess.run(
            [sys.executable, "-m", "jaxrewrite", *argv],
            cwd=tmp_path,
            env=env(bytecode=True),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        report = done.stdout + done.stderr
        assert "Traceback" not in report, (argv, report[-3000:])
        if python_compiles:
            assert done.returncode == ok, (argv, report[-3000:])
        else:
            assert done.returncode == {"migrate": 2}.get(argv[0], 1), (argv, report[-3000:])
            name = argv[1]
            assert (
                f"{name}:1:1: " in report and "too deeply nested for Python's parser" in report
            ), (argv, report[-3000:])


def test_the_runner_runs_what_python_compiles_however_deep(
    tmp_path: Path, prewarmed: Prewarmed
) -> None:
    """The hook's tree route falls back to the text where a tree object is too deep to compile:
    the runner prints what the same program written by hand prints under ``python`` (both
    forked from an interpreter that has imported jax, tests/prewarmed.py)."""
    (tmp_path / "deep.py").write_text(_deep_module(DEEP["sum2500"]))
    (tmp_path / "hand.py").write_text(_deep_module(DEEP["sum2500"], by_hand=True))
    ours = python("-m", "jaxrewrite", "deep.py", cwd=tmp_path, prewarmed=prewarmed)
    plain = python("hand.py", cwd=tmp_path, prewarmed=prewarmed)
    assert (ours.returncode, ours.stdout) == (plain.returncode, plain.stdout) == (0, "2503.0\n"), (
        ours.stderr[-3000:]
    )


_HEAD = (
    b"# jaxrewrite: enable\nimport jax\nfrom jaxrewrite import Static\n\n\n@jax.jit\n"
    b"def f(x, n: Static[int]):\n    return x * n\n"
)

#: Files no command may crash on: each is read as Python reads it, or reported at its line and
#: column in the same words by every command (``commands.files.SourceError``).
HOSTILE: dict[str, bytes | None] = {
    "badbytes.py": _HEAD + b"s = '\xe9t\xe9'\n",
    "early.py": b"x = '\xff'\n" + _HEAD,  # in the first two lines, where Python looks for a coding
    "nul.py": _HEAD + b"x = 1\0\n",
    "badcookie.py": b"# -*- coding: nosuch -*-\n" + _HEAD,
    "bom.py": b"\xef\xbb\xbf" + _HEAD,
    "crlf.py": _HEAD.replace(b"\n", b"\r\n"),
    "latin1.py": b"# -*- coding: latin-1 -*-\n" + _HEAD + b"s = '\xe9t\xe9'\n",
    "empty.py": b"",
    "huge.py": _HEAD + b"s = '" + b"a" * 1_000_000 + b"'\n",
    "folder.py": None,  # a directory: a folder to walk for check, migrate and compile
    "missing.py": None,
}
#: The reported place and reason of the files that cannot be read.
UNREADABLE = {
    "badbytes.py": (
        "badbytes.py:9:6: cannot read it as Python source: byte 0xe9 is not utf-8: invalid "
        "continuation byte"
    ),
    "early.py": (
        "early.py:1:6: cannot read it as Python source: byte 0xff is not utf-8: invalid start byte"
    ),
    "nul.py": "nul.py:9:6: cannot read it as Python source: it holds a NUL byte (a binary file?)",
    "badcookie.py": "badcookie.py:1:1: cannot read it as Python source: unknown encoding: nosuch",
    "missing.py": "missing.py: no such file or folder",
}
#: Each command's status for input it cannot read (compile reports a failed file as 1).
STATUS = {"check": 2, "show": 2, "migrate": 2, "compile": 1}


@pytest.mark.parametrize("command", list(STATUS))
@pytest.mark.parametrize("name", list(HOSTILE))
def test_every_command_reports_a_hostile_file_the_same_way(
    tmp_path: Path, command: str, name: str
) -> None:
    """Bad bytes, a NUL, an unknown coding are reported by every command in the same words,
    naming file, line and column; a BOM, CRLF, a latin-1 declaration, an empty file and a huge
    line are read as Python reads them; no frame of jaxrewrite's own code ever reaches the user."""
    data = HOSTILE[name]
    if data is not None:
        (tmp_path / name).write_bytes(data)
    elif name == "folder.py":
        (tmp_path / name).mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", command, name],
        cwd=tmp_path,
        env=env(),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
        check=False,
    )
    report = done.stdout + done.stderr
    assert "Traceback" not in report and "jaxrewrite/" not in report, report[-3000:]
    if name in UNREADABLE:
        assert UNREADABLE[name] in report, report  # compile reports on stdout, as its other lines
        assert done.returncode == (2 if name == "missing.py" else STATUS[command]), report
    elif name == "folder.py" and command == "show":
        assert (done.returncode, done.stderr) == (
            2,
            "python -m jaxrewrite show: folder.py: is a folder, not a Python file\n",
        )
    else:
        assert done.returncode == 0, report[-3000:]


@pytest.mark.parametrize("others", [0, 60])
def test_check_reports_an_unreadable_file_however_many_files_it_walks(
    tmp_path: Path, others: int
) -> None:
    """A file without any of check's needles is still decoded: from 48 files on, check settles
    what it can before the pool, and that pre-pass once passed an unreadable file as clean."""
    for i in range(others):
        (tmp_path / f"plain{i}.py").write_text(f"x = {i}\n")
    (tmp_path / "nul.py").write_bytes(b"x = 1\ny = '\0'\n")
    (tmp_path / "latin.py").write_bytes(b"s = '\xe9'\n")
    done = jaxrewrite("check", ".", cwd=tmp_path)
    report = done.stdout + done.stderr
    assert done.returncode == 2, report
    assert "nul.py:2:6: cannot read it as Python source: it holds a NUL byte" in report, report
    assert "latin.py:1:6: cannot read it as Python source: byte 0xe9 is not utf-8" in report, report
