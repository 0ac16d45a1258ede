"""``python -m MODULE ARGS`` or ``python SCRIPT ARGS`` in a fork of an interpreter that has
imported jax already: the same program, without paying ~2 s of CPU for ``import jax`` each time.

Used by tests that start many short programs (tests/test_docs.py runs every docs example). A
``Prewarmed`` starts this file as a server: it imports jax and jax.numpy (never jaxrewrite, so the
runner's cold path is each child's own), then forks one child per request. The child becomes what
the interpreter would have been for that command line before running user code: its own cwd,
stdin from /dev/null, stdout and stderr to files, ``sys.argv``/``sys.orig_argv``/``sys.path[0]``
as CPython sets them, a fresh ``__main__``; then the module or script runs at this file's top
level, so an uncaught exception, ``SystemExit``, atexit handlers, thread joins and the exit
status are the interpreter's own. The environment is the server's, given once.

What a child can tell apart from a fresh ``python``: jax (and numpy) are in ``sys.modules`` before
the hook is installed, and a traceback printed by the interpreter starts with one frame of this
file. ``JAXREWRITE_TEST_FRESH=1`` makes ``run`` start a fresh interpreter instead (same result
object), to rule the server out when a test fails only here.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

FRESH = os.environ.get("JAXREWRITE_TEST_FRESH") == "1"


def _read_line(fd: int, buffer: bytearray) -> bytes | None:
    """One line from ``fd`` through our own buffer (never Python's: a child must find sys.stdin empty)."""
    while b"\n" not in buffer:
        chunk = os.read(fd, 65536)
        if not chunk:
            return None
        buffer += chunk
    line, _, rest = bytes(buffer).partition(b"\n")
    buffer[:] = rest
    return line


class Prewarmed:
    """A server started with ``env`` (each child's environment); ``run`` is ``subprocess.run``'s
    answer for ``[sys.executable, *argv]`` in ``cwd``, with stdin from /dev/null and output captured."""

    def __init__(self, env: dict[str, str], logdir: Path) -> None:
        self.env = env
        self.logdir = logdir
        self.log = logdir / "prewarmed-server.log"
        self.count = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.buffer = bytearray()

    def _start(self) -> subprocess.Popen[bytes]:
        if self.proc is None:
            with open(self.log, "wb") as log:
                self.proc = subprocess.Popen(
                    [sys.executable, __file__], env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log
                )
        return self.proc

    def close(self) -> None:
        if self.proc is not None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
            self.proc = None

    def _answer(self, timeout: float | None) -> dict[str, Any]:
        proc = self._start()
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        if timeout is not None and b"\n" not in self.buffer and not select.select([fd], [], [], timeout)[0]:
            raise subprocess.TimeoutExpired(proc.args, timeout)
        line = _read_line(fd, self.buffer)
        if line is None:
            raise RuntimeError(f"the prewarmed server died:\n{self.log.read_text(errors='replace')[-4000:]}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def run(self, argv: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
        """``argv`` is ``["-m", MODULE, *args]`` or ``[SCRIPT, *args]``, as after ``python``."""
        if FRESH:
            return subprocess.run(
                [sys.executable, *argv], cwd=cwd, env=self.env, stdin=subprocess.DEVNULL,
                capture_output=True, text=True, timeout=timeout, check=False,
            )
        self.count += 1
        out, err = self.logdir / f"{self.count}.stdout", self.logdir / f"{self.count}.stderr"
        proc = self._start()
        assert proc.stdin is not None
        request = {"argv": argv, "cwd": str(cwd), "stdout": str(out), "stderr": str(err)}
        proc.stdin.write(json.dumps(request).encode() + b"\n")
        proc.stdin.flush()
        pid = self._answer(timeout=60)["pid"]
        try:
            status = self._answer(timeout)["status"]
        except subprocess.TimeoutExpired:
            os.kill(pid, signal.SIGKILL)
            self._answer(timeout=60)
            raise
        try:
            return subprocess.CompletedProcess(
                [sys.executable, *argv], status, out.read_text(errors="replace"), err.read_text(errors="replace")
            )
        finally:
            out.unlink()
            err.unlink()


# --- the server -------------------------------------------------------------------------------


def _serve() -> dict[str, Any]:
    """Answer requests until stdin closes (then exit); returns only in a forked child, its request."""
    import jax.numpy  # noqa: F401 - the point of the server (jax with it)

    buffer = bytearray()
    while True:
        line = _read_line(0, buffer)
        if line is None:
            sys.exit(0)
        request: dict[str, Any] = json.loads(line)
        pid = os.fork()
        if pid == 0:
            return request
        os.write(1, json.dumps({"pid": pid}).encode() + b"\n")
        _, wait_status = os.waitpid(pid, 0)
        os.write(1, json.dumps({"status": os.waitstatus_to_exitcode(wait_status)}).encode() + b"\n")


def _become(request: dict[str, Any]) -> None:
    """Turn this fork into the interpreter ``python ARGV`` would be, just before the user's code."""
    import builtins
    import importlib.machinery
    import types

    os.chdir(request["cwd"])
    for fd, path, flags in (
        (0, os.devnull, os.O_RDONLY),
        (1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        (2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
    ):
        opened = os.open(path, flags, 0o644)
        os.dup2(opened, fd)
        os.close(opened)
    argv: list[str] = request["argv"]
    sys.orig_argv = [sys.executable, *argv]
    main = types.ModuleType("__main__")
    main.__dict__.update(__builtins__=builtins, __annotations__={}, __loader__=importlib.machinery.BuiltinImporter)
    sys.modules["__main__"] = main
    if argv[0] == "-m":
        sys.argv = ["-m", *argv[2:]]  # runpy puts the module's file in argv[0]
        sys.path[0] = os.getcwd()
    else:
        script = argv[0] if os.path.isabs(argv[0]) else os.path.join(os.getcwd(), argv[0])
        sys.argv = list(argv)
        sys.path[0] = os.path.dirname(os.path.realpath(script))
        main.__dict__.update(__file__=script, __cached__=None)
        main.__loader__ = importlib.machinery.SourceFileLoader("__main__", script)


if __name__ == "__main__":
    _request = _serve()
    _become(_request)
    if _request["argv"][0] == "-m":
        import runpy

        runpy._run_module_as_main(_request["argv"][1], True)  # type: ignore[attr-defined]
    else:
        with open(sys.modules["__main__"].__file__, "rb") as _source:
            _code = compile(_source.read(), sys.modules["__main__"].__file__, "exec", dont_inherit=True)
        exec(_code, sys.modules["__main__"].__dict__)  # noqa: S102 - what python SCRIPT does
