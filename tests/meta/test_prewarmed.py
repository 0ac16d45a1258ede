"""The prewarmed server's children end as fresh interpreters do: the same status, output and
order of output for a normal end, ``sys.exit`` of each kind, an uncaught exception or interrupt,
atexit handlers, threads still running and unflushed output (tests/prewarmed.py ends each child
with ``os._exit`` once what ``Py_FinalizeEx`` does first is done); a child collects its own
garbage as ever, while what the server made is frozen. Last, conftest's other head start for the
programs the suite starts: jaxrewrite's bytecode, current before any test runs."""

from __future__ import annotations

import re
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import support

if sys.platform.startswith("linux"):
    from prewarmed import Prewarmed
else:  # pragma: no cover - the server forks
    pytest.skip("the prewarmed server forks: Linux only", allow_module_level=True)

PROGRAMS = {
    "normal end, output unflushed": "import sys\nprint('out', end='')\nsys.stderr.write('err')",
    "exit with a status": "import sys\nprint('before')\nsys.exit(3)",
    "exit with None": "import sys\nsys.exit(None)",
    "exit with a message": "import sys\nsys.exit('bad input')",
    "exit status over 255": "import sys\nsys.exit(258)",
    "uncaught exception": "print('partial')\nraise ValueError('boom')",
    "uncaught interrupt": "raise KeyboardInterrupt",
    "atexit handlers, last registered first": (
        "import atexit\natexit.register(print, 'first registered')\n"
        "atexit.register(print, 'second registered')\n"
        "print('main done')"
    ),
    "an atexit handler that raises": (
        "import atexit\ndef bad():\n    raise RuntimeError('in atexit')\natexit.register(bad)"
    ),
    "a thread still running at the end": (
        "import threading, time\n"
        "def late():\n    time.sleep(0.2)\n    print('thread done', flush=True)\n"
        "threading.Thread(target=late).start()\nprint('main done')"
    ),
    "a thread joined before atexit runs": (
        "import atexit, threading, time\natexit.register(print, 'atexit')\n"
        "threading.Thread(target=lambda: (time.sleep(0.2), print('thread'))).start()"
    ),
    "os._exit skips atexit": (
        "import atexit, os\natexit.register(print, 'never')\nprint('x', flush=True)\nos._exit(7)"
    ),
    "a weakref finalizer at exit": (
        "import weakref\nclass C: pass\nc = C()\nweakref.finalize(c, print, 'finalized')"
    ),
    # The server's heap is frozen (gc.freeze): what the program itself makes is collected as ever.
    "its own cyclic garbage collected": (
        "import gc, weakref\nclass C:\n    def __del__(self): print('finalized')\n"
        "c = C()\nc.me = c\ngone = weakref.ref(c)\ndel c\nprint(gc.collect() > 0, gone() is None)"
    ),
}


def _without_server_frames(text: str) -> str:
    """A traceback printed in a child starts with one frame of prewarmed.py: drop it (and the
    addresses objects print with, which differ from process to process)."""
    return _addresses(
        re.sub(r'  File "[^"]*prewarmed\.py", line \d+, in <module>\n(    .*\n)*', "", text)
    )


def _addresses(text: str) -> str:
    return re.sub(r"0x[0-9a-f]+", "0x...", text)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_a_child_ends_as_a_fresh_interpreter(
    name: str, tmp_path: Path, prewarmed: Prewarmed
) -> None:
    code, env = PROGRAMS[name], support.child_env()
    fresh = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    forked = prewarmed.run(["-c", code], tmp_path, 120, env)
    assert (forked.returncode, forked.stdout, _without_server_frames(forked.stderr)) == (
        fresh.returncode,
        fresh.stdout,
        _addresses(fresh.stderr),
    )


def test_a_script_and_a_module_end_the_same_way(tmp_path: Path, prewarmed: Prewarmed) -> None:
    """``python SCRIPT`` and ``python -m MODULE``: their exits go through the same end."""
    support.write(
        tmp_path / "prog.py",
        textwrap.dedent("""\
        import atexit, sys
        atexit.register(print, "bye", __name__)
        print(sys.argv[1:])
        sys.exit(int(sys.argv[1]))
    """),
    )
    env = support.child_env()
    for argv in (["prog.py", "4"], ["-m", "prog", "5"], ["-m", "no_such_module_here"]):
        fresh = subprocess.run(
            [sys.executable, *argv],
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        forked = prewarmed.run(argv, tmp_path, 120, env)
        assert (forked.returncode, forked.stdout, forked.stderr) == (
            fresh.returncode,
            fresh.stdout,
            fresh.stderr,
        ), argv


def test_what_the_server_made_is_frozen_and_only_that(tmp_path: Path, prewarmed: Prewarmed) -> None:
    """The one difference gc.freeze makes, as the module's docstring lists it: a child's collections
    pass over what it made, not over jax's objects (a fresh interpreter freezes nothing)."""
    code = (
        "import gc, jax\nprint(gc.get_freeze_count() > len(gc.get_objects()), "
        "gc.get_freeze_count() > 0)"
    )
    env = support.child_env()
    fresh = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    forked = prewarmed.run(["-c", code], tmp_path, 120, env)
    assert (fresh.stdout, forked.returncode, forked.stdout) == (
        "False False\n",
        0,
        "True True\n",
    ), forked.stderr


def test_jaxrewrites_bytecode_is_current_while_the_suite_runs() -> None:
    """conftest writes it before any test starts a program (an editable install with
    PYTHONDONTWRITEBYTECODE writes none), so no program compiles jaxrewrite from source."""
    import importlib.util

    package = support.REPO / "jaxrewrite"
    stale = []
    for source in sorted(package.rglob("*.py")):
        cached = Path(importlib.util.cache_from_source(str(source)))
        stat = source.stat()
        # A timestamped pyc's header: magic, flags 0, the source's mtime and size, as import checks
        # them.
        header = importlib.util.MAGIC_NUMBER + struct.pack(
            "<III", 0, int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF
        )
        if not (cached.exists() and cached.read_bytes().startswith(header)):
            stale.append(str(source.relative_to(support.REPO)))
    assert not stale, stale
