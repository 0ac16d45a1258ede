"""``jaxrewrite check`` as ruff users expect it: ``.`` by default, ``--exclude``, standard input,
the summary line, ``[tool.jaxrewrite]``, colour, and a help that names exit codes and ``# noqa``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from golden_cases import GOLDEN, ROOT
from support import child_env, jaxrewrite, write

HELPER = (GOLDEN / "check" / "jr002_helper.py").read_text(encoding="utf-8")
UNHASHABLE = (GOLDEN / "check" / "jr003_unhashable.py").read_text(encoding="utf-8")


def run(
    *args: str, cwd: Path, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    environ = child_env(drop=("NO_COLOR", "FORCE_COLOR"), **env)
    return jaxrewrite("check", *args, cwd=cwd, env=environ, stdin=stdin)


def codes(done: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
    """(path, code) of each finding line (the summary line left out)."""
    return [
        (line.split(":")[0], line.split()[1]) for line in done.stdout.splitlines() if ": JR" in line
    ]


def test_no_path_checks_the_current_folder_and_names_files_as_ruff(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "h.py", HELPER)
    done = run(cwd=tmp_path)
    assert done.returncode == 1
    assert codes(done) == [(os.path.join("pkg", "h.py"), "JR002")]  # not ./pkg/h.py
    assert done.stdout.endswith("\nFound 1 finding in 1 file.\n") and done.stderr == ""


def test_summary_only_in_the_text_form(tmp_path: Path) -> None:
    write(tmp_path / "h.py", HELPER)
    write(tmp_path / "m.py", UNHASHABLE)
    text = run(cwd=tmp_path)
    assert text.stdout.splitlines()[-1] == f"Found {len(codes(text))} findings in 2 files."
    assert json.loads(run("--format", "json", cwd=tmp_path).stdout)  # the whole stdout is JSON
    github = run("--format", "github", cwd=tmp_path).stdout.splitlines()
    assert github and all(line.startswith("::error ") for line in github)
    clean = tmp_path / "clean"
    write(clean / "plain.py", "x = 1\n")
    assert run(cwd=clean).stdout == "All checks passed!\n"
    assert run("--format", "json", cwd=clean).stdout == "[]\n"


def test_exclude_globs_as_ruff_reads_them(tmp_path: Path) -> None:
    write(tmp_path / "src" / "a.py", HELPER)
    write(tmp_path / "src" / "gen" / "b.py", HELPER)
    write(tmp_path / "other" / "gen" / "c.py", HELPER)
    write(tmp_path / "venv" / "lib" / "d.py", HELPER)  # a folder merely named venv is walked...
    write(tmp_path / "env2" / "pyvenv.cfg", "")  # ...a virtual environment (PEP 405) never is
    write(tmp_path / "env2" / "lib" / "e.py", HELPER)
    walked = sorted(path for path, _ in codes(run(cwd=tmp_path)))
    assert walked == sorted(
        os.path.join(*p)
        for p in [
            ("other", "gen", "c.py"),
            ("src", "a.py"),
            ("src", "gen", "b.py"),
            ("venv", "lib", "d.py"),
        ]
    )
    by_name = {p for p, _ in codes(run("--exclude", "gen,venv", cwd=tmp_path))}
    assert by_name == {os.path.join("src", "a.py")}  # a bare name: any folder or file so named
    anchored = {
        p for p, _ in codes(run("--exclude", "src/gen", "--exclude", "*/lib/*.py", cwd=tmp_path))
    }
    assert anchored == {os.path.join("src", "a.py"), os.path.join("other", "gen", "c.py")}
    named = run(
        "--exclude", "a.py", "src/a.py", cwd=tmp_path
    )  # a path named on the line is checked
    assert codes(named) == [(os.path.join("src", "a.py"), "JR002")]


def test_standard_input(tmp_path: Path) -> None:
    done = run("-", cwd=tmp_path, stdin=HELPER)
    assert done.returncode == 1 and codes(done) == [("-", "JR002")]
    named = run("-", "--stdin-filename", "pkg/helper.py", cwd=tmp_path, stdin=HELPER)
    assert codes(named) == [("pkg/helper.py", "JR002")]
    assert run("-", cwd=tmp_path, stdin="x = 1\n").returncode == 0
    mixed = run("-", "a.py", cwd=tmp_path, stdin=HELPER)
    assert mixed.returncode == 2 and "cannot be combined" in mixed.stderr


def test_help_lists_exit_codes_noqa_and_configuration(tmp_path: Path) -> None:
    done = run("--help", cwd=tmp_path)
    assert done.returncode == 0
    for needle in (
        "exit status:",
        "  0    no findings",
        "  1    findings",
        "  2    usage errors",
        "  141  the reader of the output went away",
        "# noqa: JR002",
        "[tool.jaxrewrite]",
        "--exclude",
        "--stdin-filename",
    ):
        assert needle in done.stdout, needle


# -- [tool.jaxrewrite] ---------------------------------------------------------------------------


def test_configuration_select_ignore_exclude_per_file_ignores(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml",
        '[tool.jaxrewrite]\nignore = ["JR003"]\nexclude = ["build"]\n'
        '[tool.jaxrewrite.per-file-ignores]\n"tests/*" = ["JR002"]\n',
    )
    write(tmp_path / "m.py", UNHASHABLE)
    write(tmp_path / "h.py", HELPER)
    write(tmp_path / "tests" / "h.py", HELPER)
    write(tmp_path / "build" / "h.py", HELPER)
    sub = tmp_path / "deep" / "er"
    sub.mkdir(parents=True)
    assert codes(run(cwd=tmp_path)) == [("h.py", "JR002")]
    # Found upward from the cwd, as ruff finds its own; relative patterns read from the file's
    # folder.
    assert codes(run(str(tmp_path), cwd=sub)) == [(os.path.join(str(tmp_path), "h.py"), "JR002")]
    # --select on the command line replaces the file's select; --ignore adds to its ignore.
    write(tmp_path / "other.toml", '[tool.jaxrewrite]\nselect = ["JR003"]\n')
    assert {c for _, c in codes(run("--config", "other.toml", cwd=tmp_path))} == {"JR003"}
    assert {
        c for _, c in codes(run("--config", "other.toml", "--select", "JR002", cwd=tmp_path))
    } == {"JR002"}


@pytest.mark.parametrize(
    ("table", "needle"),
    [
        ('selec = ["JR002"]', "unknown key 'selec'"),
        ('select = ["JR9"]', "unknown code or prefix: JR9"),
        (
            'ignore = "JR002"',
            "'ignore' must be a list of codes or code prefixes (['JR002'], not 'JR002')",
        ),
        (
            'select = "JR002"',
            "'select' must be a list of codes or code prefixes (['JR002'], not 'JR002')",
        ),
        ('exclude = "build"', "'exclude' must be a list of glob patterns (['build'], not 'build')"),
        ("exclude = 3", "'exclude' must be a list of glob patterns"),
        ('packages = ["my-pkg"]', "'packages' takes top-level package names, not 'my-pkg'"),
        ('select = ["JR002"', "not valid TOML"),
    ],
)
def test_a_bad_configuration_is_a_clear_error_naming_the_file(
    tmp_path: Path, table: str, needle: str
) -> None:
    write(tmp_path / "pyproject.toml", f"[tool.jaxrewrite]\n{table}\n")
    write(tmp_path / "h.py", HELPER)
    done = run(cwd=tmp_path)
    assert done.returncode == 2 and needle in done.stderr and "pyproject.toml" in done.stderr, (
        done.stderr
    )


def test_a_pyproject_without_the_table_is_passed_over(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.jaxrewrite]\nignore = ["JR002"]\n')
    inner = tmp_path / "inner"
    write(inner / "pyproject.toml", "[tool.black]\nline-length = 99\n")
    write(inner / "h.py", HELPER)
    assert run(cwd=inner).stdout == "All checks passed!\n"
    missing = run("--config", "nowhere.toml", cwd=inner)
    assert missing.returncode == 2 and "nowhere.toml: no such configuration file" in missing.stderr


# -- colour --------------------------------------------------------------------------------------


def test_colour_forced_refused_and_never_when_piped(tmp_path: Path) -> None:
    write(tmp_path / "h.py", HELPER)
    piped = run(cwd=tmp_path)
    assert "\033[" not in piped.stdout  # a pipe: no colour
    forced = run(cwd=tmp_path, FORCE_COLOR="1")
    assert (
        "\033[1mh.py\033[0m\033[36m:\033[0m8" in forced.stdout
        and "\033[1;31mJR002\033[0m" in forced.stdout
    )
    assert (
        "\033[" not in run(cwd=tmp_path, FORCE_COLOR="1", NO_COLOR="1").stdout
    )  # NO_COLOR wins, as in CPython
    assert "\033[" not in run("--format", "json", cwd=tmp_path, FORCE_COLOR="1").stdout
    assert "\033[" not in run("--format", "github", cwd=tmp_path, FORCE_COLOR="1").stdout


def test_colour_on_a_terminal(tmp_path: Path) -> None:
    """A real pseudo-terminal: coloured without FORCE_COLOR, plain with NO_COLOR."""
    pty = pytest.importorskip("pty")
    write(tmp_path / "h.py", HELPER)

    def on_a_terminal(**env: str) -> str:
        environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
        environ.update(PYTHONPATH=str(ROOT), TERM="xterm", **env)
        leader, follower = pty.openpty()
        proc = subprocess.Popen(
            [sys.executable, "-m", "jaxrewrite", "check"],
            cwd=tmp_path,
            env=environ,
            stdout=follower,
            stderr=follower,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=300)
        os.close(leader)
        return b"".join(chunks).decode()

    assert "\033[1;31mJR002" in on_a_terminal()
    assert "\033[" not in on_a_terminal(NO_COLOR="1")


def test_import_jaxrewrite_reads_no_configuration() -> None:
    """The configuration is the commands' and the plugin's: importing jaxrewrite costs nothing
    more."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, jaxrewrite; print(sorted(m for m in sys.modules if 'toml' in m "
            "or m == 'jaxrewrite.config'))",
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr


def test_show_colours_its_findings_as_check_does(tmp_path: Path) -> None:
    write(tmp_path / "h.py", HELPER)
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environ["PYTHONPATH"] = str(ROOT)
    command = [sys.executable, "-m", "jaxrewrite", "show", "h.py"]
    shown = subprocess.run(
        command, cwd=tmp_path, env={**environ, "FORCE_COLOR": "1"}, capture_output=True, text=True
    )
    assert (
        "\033[1;31mJR002\033[0m" in shown.stderr and "\033[" not in shown.stdout
    )  # the source stays plain
    piped = subprocess.run(command, cwd=tmp_path, env=environ, capture_output=True, text=True)
    assert "\033[" not in piped.stderr and "h.py:8:10: JR002 " in piped.stderr
