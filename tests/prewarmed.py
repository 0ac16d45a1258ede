"""``python -m MODULE``, ``python -c CODE`` or ``python SCRIPT`` (then its arguments) in a fork of
an interpreter that has imported jax already: the same program, without ~2 s of CPU for
``import jax`` each time.

Used by the tests that start many short programs (tests/meta/test_docs.py runs every docs example;
conftest's session fixture ``prewarmed``). A server is this file run as a script: it imports jax and
jax.numpy (never jaxrewrite, so the runner's cold path is each child's own), then forks one child
per request. The child becomes what the interpreter would have been for that command line just
before user code: its own cwd, stdin from /dev/null, stdout and stderr to files,
``sys.argv``/``sys.orig_argv``/``sys.path[0]`` as CPython sets them, a fresh ``__main__``; then the
module or script runs at this file's top level. The child ends as ``Py_FinalizeEx`` begins (an
uncaught exception printed, ``SystemExit``'s status, threads joined, atexit handlers, streams
flushed: tests/meta/test_prewarmed.py compares each with a fresh ``python``), then ``os._exit``:
tearing down the heap would copy every page it shares with the server (0.3 s of a 0.32 s trivial
child, 0.02 s without). Each request brings its environment: what an interpreter reads from it at
startup must be the server's (one server per such set, ``_startup_key``), and ``PYTHONPATH`` is put
in place on ``sys.path``. Interpreter options (``-O``, ``-W``) or input always get a fresh
interpreter.

What a child can tell apart from a fresh ``python``: jax (and numpy) are in ``sys.modules`` before
the hook is installed, a traceback printed by the interpreter starts with one frame of this file,
objects still alive at the end are never finalized (their ``__del__`` does not run),
what the server had made is frozen (``gc.freeze``: the cyclic collector never scans it, so a
collection costs a child what a fresh interpreter's would, not a pass over all of jax),
and the hash seed of ``str`` is the server's (random per server, not per child; ``random`` and
numpy's global generator are seeded afresh in each child). ``JAXREWRITE_TEST_FRESH=1`` (and any
platform but Linux) makes ``run`` start a fresh interpreter instead, with the same result object,
to rule the server out when a test fails only here.
"""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

#: Fresh interpreters instead: asked for, or off Linux (no fork, or fork unsafe once a framework
#: is loaded, as on macOS).
FRESH = os.environ.get("JAXREWRITE_TEST_FRESH") == "1" or not sys.platform.startswith("linux")


def _read_line(fd: int, buffer: bytearray) -> bytes | None:
    """One line from ``fd`` through our own buffer (never Python's: a child must find sys.stdin
    empty)."""
    while b"\n" not in buffer:
        chunk = os.read(fd, 65536)
        if not chunk:
            return None
        buffer += chunk
    line, _, rest = bytes(buffer).partition(b"\n")
    buffer[:] = rest
    return line


#: Read by the interpreter (or by jax's import, or cached by the server) before any request: a
#: request whose values of these differ from a server's gets a server of its own.
_STARTUP = ("PYTHON", "JAX_", "XLA_", "TF_", "LC_", "LANG", "TMPDIR", "TEMP", "TMP")


_SITE_HOOKS = ("sitecustomize.py", "sitecustomize", "usercustomize.py", "usercustomize")


def _startup_key(env: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """What of ``env`` a fresh interpreter has read by the time it runs user code. PYTHONPATH is
    not, unless an entry holds a sitecustomize: the child puts its entries in place. HOME only
    where it holds a user site-packages."""
    key = {k: v for k, v in env.items() if k.startswith(_STARTUP) and k != "PYTHONPATH"}
    for entry in env.get("PYTHONPATH", "").split(os.pathsep):
        if entry and any(os.path.exists(os.path.join(entry, name)) for name in _SITE_HOOKS):
            key["PYTHONPATH"] = env[
                "PYTHONPATH"
            ]  # site imports it at startup: the server must have
    base = env.get("PYTHONUSERBASE") or os.path.join(env.get("HOME", "~"), ".local")
    user_site = os.path.join(
        base, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}", "site-packages"
    )
    key["user site"] = user_site if os.path.isdir(user_site) else ""
    return tuple(sorted(key.items()))


class _Server:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.log = log
        self.buffer = bytearray()
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, __file__],
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=out,
            )

    def send(self, request: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        if b"\n" not in self.buffer and not select.select([fd], [], [], timeout)[0]:
            raise subprocess.TimeoutExpired(self.proc.args, timeout)
        line = _read_line(fd, self.buffer)
        if line is None:
            raise RuntimeError(
                f"the prewarmed server died:\n{self.log.read_text(errors='replace')[-4000:]}"
            )
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def forkable(argv: list[str]) -> bool:
    """``-m MODULE``, ``-c CODE`` or a script, and no interpreter options (those act at startup)."""
    return bool(argv) and (
        argv[0] in ("-c", "-m") and len(argv) > 1 or argv[0].startswith("-m") or argv[0][:1] != "-"
    )


class Prewarmed:
    """``run`` is ``subprocess.run``'s answer for ``[sys.executable, *argv]`` in ``cwd`` with
    ``env``, stdin from /dev/null and output captured; servers are started as needed (one per
    startup key)."""

    def __init__(self, logdir: Path) -> None:
        self.logdir = logdir
        self.count = 0
        self.servers: dict[tuple[tuple[str, str], ...], _Server] = {}
        self.seen: set[tuple[tuple[str, str], ...]] = set()
        self.unusable: set[tuple[tuple[str, str], ...]] = set()  # its imports printed something

    def _first_of_another_key(self, key: tuple[tuple[str, str], ...]) -> bool:
        """A server for the first environment at once; for any other, from its second request on
        (a lone run in an odd environment would pay for a server it does not use)."""
        if not self.seen or key in self.seen:
            self.seen.add(key)
            return False
        self.seen.add(key)
        return True

    @staticmethod
    def _fresh(
        argv: list[str], cwd: Path, timeout: float, env: dict[str, str]
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, *argv],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def close(self) -> None:
        for server in self.servers.values():
            server.close()
        self.servers.clear()

    def run(
        self, argv: list[str], cwd: Path, timeout: float, env: dict[str, str]
    ) -> subprocess.CompletedProcess[str]:
        """``argv`` as after ``python``: ``-m MODULE`` (or ``-mMODULE``), ``-c CODE`` or ``SCRIPT``,
        then the program's arguments; any other command line starts a fresh interpreter."""
        key = _startup_key(env)
        if FRESH or not forkable(argv) or key in self.unusable or self._first_of_another_key(key):
            return self._fresh(argv, cwd, timeout, env)
        self.count += 1
        out, err = self.logdir / f"{self.count}.stdout", self.logdir / f"{self.count}.stderr"
        if key not in self.servers:
            self.servers[key] = _Server(env, self.logdir / f"server-{len(self.servers)}.log")
            if self.servers[key].answer(timeout=120)["printed"]:
                self.servers.pop(key).close()
                self.unusable.add(key)
        if key in self.unusable:
            return self._fresh(argv, cwd, timeout, env)
        server = self.servers[key]
        server.send(
            {"argv": argv, "cwd": str(cwd), "env": env, "stdout": str(out), "stderr": str(err)}
        )
        pid = server.answer(timeout=120)["pid"]
        try:
            status = server.answer(timeout)["status"]
        except subprocess.TimeoutExpired:
            os.kill(pid, signal.SIGKILL)
            server.answer(timeout=60)
            raise
        try:
            return subprocess.CompletedProcess(
                [sys.executable, *argv],
                status,
                out.read_text(errors="replace"),
                err.read_text(errors="replace"),
            )
        finally:
            out.unlink()
            err.unlink()


# --- the server -------------------------------------------------------------------------------

_ADDED_BY_IMPORTS: dict[str, str] = {}


def _serve() -> dict[str, Any]:
    """Answer requests until stdin closes (then exit); returns only in a forked child, its
    request."""
    global _ADDED_BY_IMPORTS
    import tempfile

    started_with = dict(os.environ)
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as printed:
        os.dup2(printed.fileno(), 1)
        os.dup2(printed.fileno(), 2)
        try:
            import jax.numpy  # noqa: F401 - the point of the server (jax with it)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        printed.seek(0)
        # Anything printed would be missing from every child's output: the client then starts
        # fresh interpreters for this environment instead.
        os.write(
            1, json.dumps({"printed": printed.read().decode(errors="replace")}).encode() + b"\n"
        )

    # What importing jax put in os.environ (it sets TF_CPP_MIN_LOG_LEVEL unless set): a child's
    # environment gets it the same way, as if its own import of jax had run.
    _ADDED_BY_IMPORTS = {k: v for k, v in os.environ.items() if started_with.get(k) != v}
    os.environ.clear()
    os.environ.update(started_with)
    # Everything alive now (jax's modules, the bulk of every child's heap) out of the cyclic
    # collector's reach, as gc.freeze's documentation advises before forking: each full
    # collection in a child then scans only what the child made. pytest ends every session with
    # five of them (a 0.7 s tail of every pytest run a child makes, 0.1 s with this).
    gc.freeze()

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
    if request["env"] != dict(os.environ):
        # As a fresh interpreter with this environment: PYTHONPATH's entries (absolute, without
        # repeats, as site leaves them) where the server's were; all else matches (_startup_key).
        old_entries = _python_path(dict(os.environ))
        assert sys.path[1 : 1 + len(old_entries)] == old_entries, (sys.path, old_entries)
        os.environ.clear()
        os.environ.update(request["env"])
        entries = [sys.path[0], *_python_path(request["env"]), *sys.path[1 + len(old_entries) :]]
        sys.path[:] = list(dict.fromkeys(entries))
    for name, value in _ADDED_BY_IMPORTS.items():
        os.environ.setdefault(name, value)
    if "numpy.random" in sys.modules:  # random reseeds itself in a fork; numpy's does not
        sys.modules["numpy.random"].seed()
    argv: list[str] = request["argv"]
    sys.orig_argv = [sys.executable, *argv]
    main = types.ModuleType("__main__")
    main.__dict__.update(
        __builtins__=builtins, __annotations__={}, __loader__=importlib.machinery.BuiltinImporter
    )
    sys.modules["__main__"] = main
    if argv[0].startswith("-m"):
        sys.argv = [
            "-m",
            *argv[2 if argv[0] == "-m" else 1 :],
        ]  # runpy puts the module's file in argv[0]
        sys.path[0] = os.getcwd()
    elif argv[0] == "-c":
        sys.argv = ["-c", *argv[2:]]
        sys.path[0] = ""
    else:
        script = argv[0] if os.path.isabs(argv[0]) else os.path.join(os.getcwd(), argv[0])
        sys.argv = list(argv)
        sys.path[0] = os.path.dirname(os.path.realpath(script))
        main.__dict__.update(__file__=script, __cached__=None)
        main.__loader__ = importlib.machinery.SourceFileLoader("__main__", script)


def _python_path(env: dict[str, str]) -> list[str]:
    entries = [
        os.path.abspath(entry) for entry in env.get("PYTHONPATH", "").split(os.pathsep) if entry
    ]
    return list(dict.fromkeys(entries))


def _system_exit_status(exc: SystemExit) -> int:
    """The status CPython gives an uncaught ``SystemExit`` (printing a non-integer code)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    sys.stderr.write(f"{exc.code}\n")
    return 1


def _finish(status: int, interrupted: bool) -> None:
    """End the child the way ``Py_FinalizeEx`` begins: non-daemon threads joined, atexit handlers
    run, standard streams flushed (120 if that fails); then ``os._exit``, without the heap
    teardown that follows, which would touch, and so copy, every page shared with the server."""
    import atexit
    import threading

    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - the interpreter's own rule
            status = 120
    if interrupted:  # as CPython ends on an uncaught KeyboardInterrupt: by the signal itself
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(status & 0xFF)


if __name__ == "__main__":
    _request = _serve()
    _become(_request)
    _status, _interrupted = 0, False
    try:
        if _request["argv"][0].startswith("-m"):
            import runpy

            _module = _request["argv"][0][2:] or _request["argv"][1]
            runpy._run_module_as_main(_module, True)  # type: ignore[attr-defined]
        elif _request["argv"][0] == "-c":
            _code = compile(_request["argv"][1], "<string>", "exec", dont_inherit=True)
            exec(_code, sys.modules["__main__"].__dict__)  # noqa: S102 - what python -c does
        else:
            _script: str = sys.modules["__main__"].__dict__["__file__"]
            with open(_script, "rb") as _source:
                _code = compile(_source.read(), _script, "exec", dont_inherit=True)
            exec(_code, sys.modules["__main__"].__dict__)  # noqa: S102 - what python SCRIPT does
    except SystemExit as _exit:
        _status = _system_exit_status(_exit)
    except BaseException as _error:  # noqa: BLE001 - printed as the interpreter prints it
        sys.excepthook(type(_error), _error, _error.__traceback__)
        _status, _interrupted = 1, isinstance(_error, KeyboardInterrupt)
    _finish(_status, _interrupted)
