"""The command line: ``python -m jaxrewrite`` must look like ``python`` to the program it runs.

Most tests run a program both ways in child interpreters and compare what it saw and printed.
Programs here do not import jax (so each run costs ~0.2 s); one end-to-end test does.
"""

from __future__ import annotations

import json
import py_compile
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import support
from support import child_env as env
from support import python

import jaxrewrite
from jaxrewrite.engine.rewrite import rewrite_source

REPO = str(Path(jaxrewrite.__file__).resolve().parent.parent)

#: Prints, as one JSON line, everything ``__main__`` semantics decide; an atexit line follows
#: (CPython removes ``__file__`` from ``__main__`` once a script has run).
PROBE = '''\
"""probe docstring"""
import atexit, json, sys
_g = {k: v for k, v in globals().items() if k not in ("atexit", "json", "sys")}
def _describe(v):
    if k == "__loader__" or k == "__spec__":
        return None if v is None else [type(v).__name__, getattr(v, "name", None), getattr(v, "path", getattr(v, "origin", None))]
    if k == "__builtins__":
        return [type(v).__name__, getattr(v, "__name__", None)]
    return [type(v).__name__, v if isinstance(v, (str, type(None), dict)) else None]
_out = {"argv": sys.argv, "path": sys.path, "is_main": sys.modules["__main__"] is sys.modules[__name__]}
for k in sorted(_g):
    _out[k] = _describe(_g[k])
print(json.dumps(_out))
atexit.register(lambda: print("atexit __file__:", "__file__" in vars(sys.modules["__main__"])))
'''  # noqa: E501

#: What a pip-generated console script for ``jaxrewrite = jaxrewrite.cli:main`` contains.
CONSOLE_SCRIPT = """\
import re
import sys
from jaxrewrite.cli import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""

JIT_SCRIPT = """\
# jaxrewrite: enable
import jax
import jax.numpy as jnp
from jaxrewrite import Static


@jax.jit
def repeat_add(x, n: Static[int]):
    for _ in range(n):  # needs a concrete n: only a static argument is one
        x = x + 1
    return x


print(float(repeat_add(jnp.zeros(()), 3)))
"""


def jaxrewrite_(
    *args: str, cwd: Path, flags: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    return support.jaxrewrite(*args, cwd=cwd, flags=flags)


def same(a: subprocess.CompletedProcess[str], b: subprocess.CompletedProcess[str]) -> None:
    assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)


def write(path: Path, text: str) -> Path:
    return support.write(path, text, dedent=True)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/work (the cwd), tmp/work/sub/probe.py, a symlink to it, and a package with a __main__."""
    work = tmp_path / "work"
    write(work / "sub" / "probe.py", PROBE)
    write(work / "pkg" / "__init__.py", "")
    write(work / "pkg" / "probe.py", PROBE)
    write(work / "pkg" / "__main__.py", PROBE)
    write(work / "app" / "__main__.py", PROBE)
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "probe_link.py").symlink_to(work / "sub" / "probe.py")
    py_compile.compile(
        str(work / "sub" / "probe.py"), cfile=str(work / "compiled.pyc"), doraise=True
    )
    return work


@pytest.mark.parametrize(
    "argv",
    [
        ["sub/probe.py", "a", "--help", "-m", "x"],  # options after the script are the script's
        ["./sub/../sub/probe.py"],  # __file__ is joined to the cwd, not normalized
        ["../links/probe_link.py"],  # sys.path[0] follows the symlink, __file__ does not
        ["compiled.pyc", "b"],
        ["app", "c"],  # a directory with __main__.py
        ["-m", "pkg.probe", "d", "-m"],
        ["-m", "pkg"],
    ],
)
def test_main_module_matches_python(tree: Path, argv: list[str]) -> None:
    ours, theirs = jaxrewrite_(*argv, cwd=tree), python(*argv, cwd=tree)
    assert theirs.returncode == 0, theirs.stderr
    same(ours, theirs)
    assert json.loads(ours.stdout.splitlines()[0])["is_main"]


def test_script_in_cwd_and_absolute_path(tree: Path) -> None:
    same(jaxrewrite_("probe.py", cwd=tree / "sub"), python("probe.py", cwd=tree / "sub"))
    script = str(tree / "sub" / "probe.py")
    same(jaxrewrite_(script, cwd=tree.parent), python(script, cwd=tree.parent))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="-P is new in 3.11")
@pytest.mark.parametrize("argv", [["sub/probe.py"], ["-m", "pkg.probe"], ["app"]])
def test_safe_path_flag_matches_python(tree: Path, argv: list[str]) -> None:
    same(jaxrewrite_(*argv, cwd=tree, flags=("-P",)), python(*argv, cwd=tree, flags=("-P",)))


def test_console_script_matches_python(tree: Path) -> None:
    wrapper = write(tree.parent / "bin" / "jaxrewrite", CONSOLE_SCRIPT)
    for argv in (["sub/probe.py", "x"], ["-m", "pkg.probe", "y"]):
        same(python(str(wrapper), *argv, cwd=tree), python(*argv, cwd=tree))


@pytest.mark.parametrize(
    "body",
    [
        "import sys; sys.exit(3)",
        "import sys; sys.exit('bye')",
        "raise SystemExit",
        "print('fine')",
        "import sys; print('out'); sys.stdout.flush(); sys.exit(None)",
    ],
)
def test_exit_status_matches_python(tmp_path: Path, body: str) -> None:
    write(tmp_path / "prog.py", body + "\n")
    same(jaxrewrite_("prog.py", cwd=tmp_path), python("prog.py", cwd=tmp_path))


RAISES = """\
def inner():
    try:
        {{}}["key"]
    except KeyError as exc:
        raise ValueError("boom") from exc

def outer():
    inner()

outer()
"""


@pytest.mark.parametrize("as_module", [False, True])
def test_traceback_matches_python(tmp_path: Path, as_module: bool) -> None:
    write(tmp_path / "failing.py", RAISES.replace("{{}}", "{}"))
    argv = ["-m", "failing"] if as_module else ["failing.py"]
    ours = jaxrewrite_(*argv, cwd=tmp_path)
    same(ours, python(*argv, cwd=tmp_path))
    assert ours.returncode == 1
    assert "jaxrewrite" not in ours.stderr and "line 10, in <module>" in ours.stderr


def test_syntax_error_matches_python(tmp_path: Path) -> None:
    write(tmp_path / "broken.py", "x = (\n")
    ours = jaxrewrite_("broken.py", cwd=tmp_path)
    same(ours, python("broken.py", cwd=tmp_path))
    assert "Traceback" not in ours.stderr


def test_custom_excepthook_is_called(tmp_path: Path) -> None:
    write(
        tmp_path / "hooked.py",
        """\
        import sys
        def hook(tp, exc, tb):
            print("hook:", tp.__name__, exc, tb.tb_frame.f_code.co_filename.endswith("hooked.py"))
        sys.excepthook = hook
        raise LookupError("nope")
        """,
    )
    ours = jaxrewrite_("hooked.py", cwd=tmp_path)
    same(ours, python("hooked.py", cwd=tmp_path))
    assert ours.stdout == "hook: LookupError nope True\n"


def test_failing_excepthook_matches_python(tmp_path: Path) -> None:
    write(
        tmp_path / "badhook.py",
        """\
        import sys
        def hook(*args):
            raise TypeError("hook broke")
        sys.excepthook = hook
        raise ValueError("original")
        """,
    )
    ours = jaxrewrite_("badhook.py", cwd=tmp_path)
    same(ours, python("badhook.py", cwd=tmp_path))
    assert "Error in sys.excepthook:" in ours.stderr and "Original exception was:" in ours.stderr


def test_keyboard_interrupt_exits_like_python(tmp_path: Path) -> None:
    write(tmp_path / "interrupted.py", "def f():\n    raise KeyboardInterrupt\nf()\n")
    ours = jaxrewrite_("interrupted.py", cwd=tmp_path)
    same(ours, python("interrupted.py", cwd=tmp_path))
    assert ours.returncode == -signal.SIGINT and ours.stderr.count("Traceback") == 1


def test_pickles_classes_defined_in_the_script(tmp_path: Path) -> None:
    write(
        tmp_path / "pickler.py",
        """\
        import pickle
        class Point:
            def __init__(self, x):
                self.x = x
        data = pickle.dumps(Point(3))
        assert b"__main__" in data
        print(pickle.loads(data).x, pickle.loads(pickle.dumps(Point)) is Point)
        """,
    )
    ours = jaxrewrite_("pickler.py", cwd=tmp_path)
    same(ours, python("pickler.py", cwd=tmp_path))
    assert ours.stdout == "3 True\n"


def test_missing_script(tmp_path: Path) -> None:
    ours, theirs = jaxrewrite_("missing.py", "x", cwd=tmp_path), python("missing.py", cwd=tmp_path)
    assert ours.returncode == theirs.returncode == 2
    assert ours.stderr.splitlines() == [
        f"python -m jaxrewrite: can't open file {str(tmp_path / 'missing.py')!r}: [Errno "
        "2] No such file or directory"
    ]
    assert ours.stderr.split(": ", 1)[1] == theirs.stderr.split(": ", 1)[1]


@pytest.mark.parametrize("name", ["no_such_module_here", "bomb.mod"])
def test_module_lookup_failures_match_python(tmp_path: Path, name: str) -> None:
    write(tmp_path / "bomb" / "__init__.py", "raise RuntimeError('bomb/__init__.py ran')\n")
    write(tmp_path / "bomb" / "mod.py", "print('unreachable')\n")
    ours = jaxrewrite_("-m", name, cwd=tmp_path)
    same(ours, python("-m", name, cwd=tmp_path))
    assert ours.returncode == 1


def test_usage_help_version(tmp_path: Path) -> None:
    bare = jaxrewrite_(cwd=tmp_path)
    assert (
        bare.returncode == 2
        and bare.stdout == ""
        and bare.stderr.startswith("usage: python -m jaxrewrite")
    )
    helped = jaxrewrite_("--help", cwd=tmp_path)
    assert (
        helped.returncode == 0 and "show TARGET" in helped.stdout and "-m MODULE" in helped.stdout
    )
    version = jaxrewrite_("--version", cwd=tmp_path)
    assert (version.returncode, version.stdout) == (0, f"jaxrewrite {jaxrewrite.__version__}\n")
    unknown = jaxrewrite_("-x", "pass", cwd=tmp_path)  # -c runs code now, as python's does
    assert unknown.returncode == 2 and "unknown option '-x'" in unknown.stderr


def test_double_dash_runs_a_script_named_show(tmp_path: Path) -> None:
    write(tmp_path / "show", "import sys; print(sys.argv)\n")
    ours = jaxrewrite_("--", "show", "--diff", cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (0, "['show', '--diff']\n")


# -- running rewritten code ---------------------------------------------------------------------

MISUSE = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static


def f(x, **options: Static[dict]):
    return x
"""


def test_rewrite_error_in_the_script_is_reported_like_a_syntax_error(tmp_path: Path) -> None:
    write(tmp_path / "misuse.py", MISUSE)
    ours = jaxrewrite_("misuse.py", cwd=tmp_path)
    assert ours.returncode == 1 and "Traceback" not in ours.stderr
    assert f'File "{tmp_path / "misuse.py"}", line 6' in ours.stderr
    assert "RewriteError: JR101 Static cannot mark **kwargs parameter 'options'" in ours.stderr


@pytest.mark.parametrize("as_module", [False, True])
def test_static_argument_drives_range_end_to_end(tmp_path: Path, as_module: bool) -> None:
    write(tmp_path / "jitted.py", JIT_SCRIPT)
    argv = ["-m", "jitted"] if as_module else ["jitted.py"]
    ours = jaxrewrite_(*argv, cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (0, "3.0\n"), ours.stderr
    if not as_module:  # the control: without the rewrite, n is traced and range(n) fails
        plain = python("jitted.py", cwd=tmp_path)
        assert plain.returncode == 1 and "Tracer" in plain.stderr


# -- show ----------------------------------------------------------------------------------------

OPTED_IN = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static


@jax.jit
def f(x, n: Static[int]):
    return x * len(range(n))"""  # no final newline: show must not add one


def test_show_path_prints_exactly_the_rewritten_source(tmp_path: Path) -> None:
    write(tmp_path / "mod.py", OPTED_IN)
    ours = jaxrewrite_("show", "mod.py", cwd=tmp_path)
    assert (ours.returncode, ours.stderr) == (0, "")
    assert ours.stdout == rewrite_source(OPTED_IN, "mod.py") != OPTED_IN
    assert "static_argnums=(1,)" in ours.stdout and not ours.stdout.endswith("\n")


def test_show_dotted_module_executes_nothing(tmp_path: Path) -> None:
    write(tmp_path / "bomb" / "__init__.py", "raise RuntimeError('executed bomb/__init__.py')\n")
    write(
        tmp_path / "bomb" / "inner" / "__init__.py", "raise RuntimeError('executed bomb/inner')\n"
    )
    write(tmp_path / "bomb" / "inner" / "mod.py", OPTED_IN)
    ours = jaxrewrite_("show", "bomb.inner.mod", cwd=tmp_path)
    assert (ours.returncode, ours.stderr) == (0, "")
    assert ours.stdout == rewrite_source(OPTED_IN, "x.py")
    package = jaxrewrite_("show", "bomb", cwd=tmp_path)  # a package shows its __init__.py
    assert package.stdout == "raise RuntimeError('executed bomb/__init__.py')\n"


def test_show_through_the_console_script(tmp_path: Path) -> None:
    write(tmp_path / "mod.py", OPTED_IN)
    wrapper = write(tmp_path / "bin" / "jaxrewrite", CONSOLE_SCRIPT)
    ours = python(str(wrapper), "show", "mod", cwd=tmp_path)  # cwd is searched, as with -m
    assert (ours.returncode, ours.stdout) == (0, rewrite_source(OPTED_IN, "mod.py"))


def test_show_diff(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "mod.py", OPTED_IN)
    ours = jaxrewrite_("show", "--diff", "pkg/mod.py", cwd=tmp_path)
    assert ours.returncode == 0
    assert ours.stdout.splitlines()[:3] == [
        "--- a/pkg/mod.py",
        "+++ b/pkg/mod.py",
        "@@ -3,6 +3,6 @@",
    ]
    assert (
        "\n-@jax.jit\n+@__import__('functools').partial(jax.jit, static_argnums=(1,)" in ours.stdout
    )
    assert ours.stdout.endswith("     return x * len(range(n))\n\\ No newline at end of file\n")


def test_show_no_pragma_prints_source_with_a_note(tmp_path: Path) -> None:
    source = "import jax\n\nx = 1\n"
    write(tmp_path / "plain.py", source)
    ours = jaxrewrite_("show", "plain.py", cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (0, source)
    assert ours.stderr == (
        "plain.py: note: no '# jaxrewrite: enable' pragma in the module header; the "
        "source is unchanged\n"
    )
    diff = jaxrewrite_("show", "plain.py", "--diff", cwd=tmp_path)
    assert (diff.returncode, diff.stdout, diff.stderr) == (0, "", ours.stderr)


def test_show_explains_misplaced_pragmas(tmp_path: Path) -> None:
    source = '"""doc"""\nimport jax\n# jaxrewrite: enable\nTEXT = """\n# jaxrewrite: enable\n"""\n'
    write(tmp_path / "late.py", source)
    ours = jaxrewrite_("show", "late.py", cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (0, source)
    notes = ours.stderr.splitlines()
    assert notes[1].startswith(
        "late.py:3: note: '# jaxrewrite: enable' here does not count: it is below the module header"
    )
    assert "(line 2)" in notes[1]
    assert notes[2] == (
        "late.py:5: note: '# jaxrewrite: enable' here does not count: it is inside a "
        "string literal, not a comment"
    )


def test_pragma_inside_an_f_string_is_explained_as_a_string() -> None:
    # Python 3.12+ tokenizes f-strings into parts (FSTRING_START ... FSTRING_END), not one STRING.
    from jaxrewrite.header import scan_header, why_ignored

    for prefix in ("f", "rf", "F"):
        source = f'TEXT = {prefix}"""\n# jaxrewrite: enable\n{{1}}"""\nx = 1\n'
        assert not scan_header(source).enabled and scan_header(source).ignored_lines == (2,)
        assert why_ignored(source, 2) == "it is inside a string literal, not a comment"


def test_show_mentions_unknown_directives(tmp_path: Path) -> None:
    write(tmp_path / "typo.py", "# jaxrewrite: enabled\nx = 1\n")
    ours = jaxrewrite_("show", "typo.py", cwd=tmp_path)
    assert ours.returncode == 0
    assert "typo.py:1:" in ours.stderr and "'# jaxrewrite: enabled'" in ours.stderr


def test_show_rewrite_error(tmp_path: Path) -> None:
    write(tmp_path / "misuse.py", MISUSE)
    ours = jaxrewrite_("show", "misuse.py", cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (1, "")
    assert ours.stderr == (
        "misuse.py:6:12: JR101 Static cannot mark **kwargs parameter 'options': "
        "JAX can only treat named or positional parameters as static; write each keyword "
        "as a keyword-only "
        "parameter instead ('*, name: Static[dict]')\n"
    )


def test_show_syntax_error(tmp_path: Path) -> None:
    """A syntax error is JR100 in show as in check: the same line, code and words."""
    write(tmp_path / "broken.py", "# jaxrewrite: enable\nimport jaxrewrite\nx = (1,\n")
    ours = jaxrewrite_("show", "broken.py", cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (1, "")
    assert ours.stderr == "broken.py:3:5: JR100 '(' was never closed\n"
    assert jaxrewrite_("check", "--no-cache", "broken.py", cwd=tmp_path).stdout.startswith(
        ours.stderr
    )


@pytest.mark.parametrize(
    "target", ["nowhere.py", "no_such_pkg.mod", "json.no_such_module", "sys", "not a name"]
)
def test_show_unknown_target(tmp_path: Path, target: str) -> None:
    ours = jaxrewrite_("show", target, cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (2, "")
    assert len(ours.stderr.splitlines()) == 1 and ours.stderr.startswith(
        "python -m jaxrewrite show: "
    )


def test_show_keeps_the_file_encoding(tmp_path: Path) -> None:
    data = b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n"
    (tmp_path / "latin.py").write_bytes(data)
    ours = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", "show", "latin.py"],
        cwd=tmp_path,
        env=env(),
        capture_output=True,
    )
    assert (ours.returncode, ours.stdout) == (0, data)


def test_show_nested_namespace_package(tmp_path: Path) -> None:
    """PEP 420 packages (no __init__.py) at every level: found without importing anything."""
    write(tmp_path / "a" / "b" / "m.py", OPTED_IN)
    ours = jaxrewrite_("show", "a.b.m", cwd=tmp_path)
    assert (ours.returncode, ours.stderr) == (0, "")
    assert ours.stdout == rewrite_source(OPTED_IN, "m.py") != OPTED_IN
    folder = jaxrewrite_("show", "a.b", cwd=tmp_path)
    assert (folder.returncode, folder.stdout) == (2, "")
    assert folder.stderr == (
        "python -m jaxrewrite show: 'a.b' has no Python source file (found a namespace package)\n"
    )
    missing = jaxrewrite_("show", "a.b.zz", cwd=tmp_path)
    assert (missing.returncode, missing.stderr) == (
        2,
        "python -m jaxrewrite show: no such file or module: 'a.b.zz'\n",
    )


def test_show_lists_every_refusal_in_source_order(tmp_path: Path) -> None:
    source = (
        "# jaxrewrite: enable\nimport jax\nfrom jaxrewrite import Static\n\n"
        "@jax.jit\ndef f(*rest: Static[int]): ...\n\n"
        "@jax.jit\ndef g(**options: Static[int]): ...\n"
    )
    write(tmp_path / "two.py", source)
    ours = jaxrewrite_("show", "two.py", cwd=tmp_path)
    assert (ours.returncode, ours.stdout) == (1, "")
    lines = ours.stderr.splitlines()
    assert [line.split(": ")[0] for line in lines] == ["two.py:6:8", "two.py:9:9"]


def test_show_several_targets_each_after_a_header(tmp_path: Path) -> None:
    write(tmp_path / "a.py", OPTED_IN + "\n")
    write(tmp_path / "b.py", "x = 1\n")
    write(tmp_path / "misuse.py", MISUSE)
    ours = jaxrewrite_("show", "a.py", "b.py", cwd=tmp_path)
    assert ours.returncode == 0
    assert (
        ours.stdout == f"==> a.py <==\n{rewrite_source(OPTED_IN, 'a.py')}\n\n==> b.py <==\nx = 1\n"
    )
    worst = jaxrewrite_("show", "a.py", "misuse.py", "nowhere.py", cwd=tmp_path)
    assert worst.returncode == 2 and "JR101" in worst.stderr and "nowhere.py" in worst.stderr
    diffs = jaxrewrite_(
        "show", "--diff", "a.py", "b.py", cwd=tmp_path
    )  # a diff names its files itself
    assert (
        diffs.returncode == 0
        and "==>" not in diffs.stdout
        and diffs.stdout.startswith("--- a/a.py\n")
    )


def _hunks_agree_with_their_bodies(diff: str) -> int:
    """Each hunk's ``-a,b +c,d`` counts the lines its body holds, lines ending at "\\n" only."""
    import re

    lines = diff.split("\n")
    hunks = 0
    for index, line in enumerate(lines):
        match = re.match(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@", line)
        if not match:
            continue
        hunks += 1
        old, new = (int(n) if n is not None else 1 for n in match.groups())
        body = []
        for following in lines[index + 1 :]:
            if following.startswith(("@@", "--- ")) or not following:
                break
            body.append(following)
        assert sum(1 for b in body if b[0] in " -") == old, (line, body)
        assert sum(1 for b in body if b[0] in " +") == new, (line, body)
    return hunks


def test_show_diff_and_migrate_diff_count_a_form_feed_as_python_does(tmp_path: Path) -> None:
    """A form feed does not end a line for Python (nor for git): both diffs say ``-1,3``, not
    ``-1,4``."""
    hand = "import jax\n\x0c\ndef f(x, n):\n    return x\n\x0c\nf = jax.jit(f, static_argnums=1)\n"
    write(tmp_path / "hand.py", hand)
    migrated = subprocess.run(
        [sys.executable, "-m", "jaxrewrite", "migrate", "hand.py"],
        cwd=tmp_path,
        env=env(),
        capture_output=True,
        text=True,
    )
    assert migrated.returncode == 1 and _hunks_agree_with_their_bodies(migrated.stdout) >= 1
    write(
        tmp_path / "feed.py",
        "# jaxrewrite: enable\x0c\nimport jax\nfrom jaxrewrite import Static\n\x0c\n"
        "@jax.jit\ndef f(x, n: Static[int]):\n    return x\n",
    )
    shown = jaxrewrite_("show", "--diff", "feed.py", cwd=tmp_path)
    assert shown.returncode == 0 and _hunks_agree_with_their_bodies(shown.stdout) == 1
    assert (
        "@@ -2,6 +2,6 @@" in shown.stdout
    )  # counted by str.splitlines() it would start at 3, not 2


C_CODE = """\
# jaxrewrite: enable
import sys, jax
from jaxrewrite import Static
T = []
@jax.jit
def f(x, n: Static[int]):
    T.append(n)
    return x * n
hand = jax.jit(lambda x, n: x * n, static_argnames="n")
print(float(f(1.0, 2)), float(f(1.0, 2)), float(hand(1.0, 2)), T, sys.argv, sys.path[0], __name__)
"""


def test_dash_c_runs_like_python_dash_c(tmp_path: Path) -> None:
    """``python -m jaxrewrite -c CODE ARGS``: argv, sys.path[0], __name__ and exit status as
    ``python -c``; code that opts in is rewritten (the Static parameter traced once, as by hand)."""
    ran = python("-m", "jaxrewrite", "-c", C_CODE, "a", "b", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "2.0 2.0 2.0 [2] ['-c', 'a', 'b']  __main__"
    for code, status in (("raise SystemExit(3)", 3), ("def (", 1)):
        ours, theirs = (
            python("-m", "jaxrewrite", "-c", code, cwd=tmp_path),
            python("-c", code, cwd=tmp_path),
        )
        assert (
            (ours.returncode, ours.stderr)
            == (theirs.returncode, theirs.stderr)
            == (status, theirs.stderr)
        )
    assert python("-m", "jaxrewrite", "-c", cwd=tmp_path).returncode == 2


def test_dash_c_without_the_pragma_says_the_pragma_is_what_is_missing(tmp_path: Path) -> None:
    """Under the runner, ``-c`` code is rewritten when it opts in: the warning for code that
    does not says so (it said "is never rewritten"); plain ``python -c`` code never is."""
    code = C_CODE.replace("# jaxrewrite: enable\n", "")
    assert code != C_CODE
    ours = python("-m", "jaxrewrite", "-c", code, cwd=tmp_path)
    assert "is rewritten only when it opts in: start it with '# jaxrewrite: enable'" in ours.stderr
    assert "never rewritten" not in ours.stderr
    theirs = python("-c", code, cwd=tmp_path)
    assert "code given with 'python -c' is never rewritten" in theirs.stderr, theirs.stderr
