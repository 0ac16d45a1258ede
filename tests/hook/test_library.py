"""A library that ships opted-in modules, tested for real: ``examples/thelib`` is built into a
wheel, installed (not editable) into a fresh venv with a wheel of this checkout's jaxrewrite, and
imported from another directory; then compiled with ``jaxrewrite compile -m thelib``, made
read-only and imported by an unprivileged user, who must get the same results with no rewrite.

The proof that no rewrite ran is that the engine never loaded: the hook imports
``jaxrewrite.engine.rewrite`` only on a cache miss. As root, "read-only" needs another user
(root writes through any mode bits): ``setpriv`` runs the imports as uid/gid 65534, with a
Python that user can run and read. Where the interpreter running the tests lives below a private
home (pyenv under /root), a system Python of the same version is used for the venv, and jax gets
into it as hard links to this interpreter's installed files (or, on another filesystem, from the
package index).
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from golden_cases import ROOT
from support import child_venv

EXAMPLE = ROOT / "examples" / "thelib"
NOBODY = 65534
TIMEOUT = 600

#: What a user of thelib does, and what the test reads back: results, traces, whether the
#: engine loaded, which loader each module had, and where everything came from.
PROBE = """\
import json, sys
import jax.numpy as jnp
import thelib
import jaxrewrite
from thelib.layers import dense

results = [
    float(thelib.power_sum(2.0, 3)),
    float(thelib.power_sum(3.0, 3)),
    float(thelib.power_sum(2.0, n=2)),
    list(thelib.tile(1.0, (2, 3)).shape),
    float(thelib.dense_stack(jnp.ones((1, 2)), jnp.eye(2) * 0.5, 2).sum()),
    thelib.describe(),
]
print(json.dumps({
    "results": results,
    "traces": [[name, list(n) if isinstance(n, tuple) else n] for name, n in thelib.TRACES],
    "engine": "jaxrewrite.engine.rewrite" in sys.modules,
    "loaders": {name: type(sys.modules[name].__loader__).__name__
                for name in ("thelib", "thelib.ops", "thelib.layers", "thelib.layers.dense", "thelib.plain")},
    "thelib": thelib.__file__,
    "jaxrewrite": jaxrewrite.__file__,
}))
"""  # noqa: E501

EXPECTED = {
    # power_sum: 2+4+8, 3+9+27, 2+4; tile's shape; two tanh layers of weight 0.5 on ones.
    "results": [
        14.0,
        39.0,
        6.0,
        [2, 3],
        pytest.approx(2 * math.tanh(0.5 * math.tanh(0.5)), rel=1e-6),
        "thelib 1.0",
    ],
    "traces": [["power_sum", 3], ["power_sum", 2], ["tile", [2, 3]]],
    "loaders": {
        "thelib": "SourceFileLoader",  # __init__ installs the hook, so it is not rewritten itself
        "thelib.ops": "RewritingLoader",
        "thelib.layers": "SourceFileLoader",
        "thelib.layers.dense": "RewritingLoader",
        "thelib.plain": "SourceFileLoader",  # no pragma
    },
}


def _run(
    argv: list[str], *, as_user: bool = False, cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    if as_user and os.geteuid() == 0:
        argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv]
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


def _checked(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, f"{done.args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _unprivileged_can_run(python: str, code: str) -> bool:
    """Whether the unprivileged user can run ``python -c code`` (always tried as that user)."""
    if os.geteuid() != 0:
        return True  # we are that user
    if shutil.which("setpriv") is None:
        return False
    done = _run(
        [python, "-I", "-c", code], as_user=True, cwd=Path("/"), env={"PATH": "/usr/bin:/bin"}
    )
    return done.returncode == 0


def _base_python() -> tuple[str, bool]:
    """(interpreter for the venv, whether the venv reuses its site-packages for jax).

    This interpreter with ``--system-site-packages`` when the unprivileged user can run it and
    import jax; else a system Python of the same version (jax then installed into the venv).
    """
    if _unprivileged_can_run(sys.executable, "import jax"):
        return sys.executable, True
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    check = (
        "import sys, venv, ensurepip; assert sys.version_info[:2] == "
        f"({version.replace('.', ', ')})"
    )
    for candidate in (f"/usr/bin/python{version}", f"/usr/local/bin/python{version}"):
        if os.access(candidate, os.X_OK) and _unprivileged_can_run(candidate, check):
            return candidate, False
    return sys.executable, True  # the unprivileged tests skip: nobody can run this Python


def _world_readable_tmp() -> Path:
    """A fresh folder every user can enter (pytest's tmp_path is private to its owner)."""
    parent = "/tmp" if os.path.isdir("/tmp") else None
    base = Path(tempfile.mkdtemp(prefix="jaxrewrite-lib-", dir=parent))
    base.chmod(0o755)
    return base


def _copy_sources(src: Path, dst: Path, names: list[str]) -> Path:
    """Build from a copy: setuptools writes build/ and *.egg-info beside the sources."""
    dst.mkdir(parents=True)
    for name in names:
        path = src / name
        if path.is_dir():
            shutil.copytree(
                path,
                dst / name,
                ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"),
            )
        else:
            shutil.copy2(path, dst / name)
    return dst


def _set_writable(tree: Path, writable: bool) -> None:
    """The installed package read-only (0555 folders, 0444 files) or back to the owner writing."""
    for folder, _dirs, files in os.walk(tree):
        for name in files:
            path = os.path.join(folder, name)
            os.chmod(path, 0o644 if writable else 0o444)
        os.chmod(folder, 0o755 if writable else 0o555)


def _link_installed(names: list[str], site_packages: Path, vpython: str) -> bool:
    """This interpreter's installed files of ``names`` and what they require, hard-linked into
    ``site_packages`` (their dist-info too, so pip sees them installed): jax without unpacking
    half a gigabyte of wheels. False, with nothing left behind, where a link cannot be made (another
    filesystem) or the unprivileged user cannot import jax through them."""
    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = list(names)
    made: list[Path] = []
    try:
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            dist = importlib.metadata.distribution(name)
            for requirement in map(Requirement, dist.requires or []):
                if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                    todo.append(requirement.name)
            for file in dist.files or []:
                if file.parts[0] == "..":
                    continue  # a script in bin/: not needed to import
                source = Path(str(dist.locate_file(file)))
                if source.is_file():
                    target = site_packages / file
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.link(source, target)
                    made.append(target)
        if _unprivileged_can_run(vpython, "import jax.numpy"):
            return True
    except (OSError, importlib.metadata.PackageNotFoundError):
        pass
    for entry in site_packages.iterdir():
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    return False


@dataclass
class Install:
    base: Path
    python: str
    jaxrewrite_script: str
    package: Path  # the installed thelib folder, in the venv's site-packages
    installed_jaxrewrite: Path
    unprivileged: bool  # whether the unprivileged user can run this venv's Python
    env: dict[str, str]
    elsewhere: Path  # an empty cwd: nothing importable from it
    originals: dict[Path, bytes]  # installed sources that tests edit, as installed

    def probe(self, *flags: str, as_user: bool = False) -> dict[str, object]:
        done = _checked(
            _run(
                [self.python, *flags, "-c", PROBE],
                as_user=as_user,
                cwd=self.elsewhere,
                env=self.env,
            )
        )
        result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
        return result

    def caches(self) -> list[str]:
        return sorted(p.name for p in self.package.rglob("*.pyc") if ".opt-jaxrewrite" in p.name)

    def reset(self) -> None:
        """Writable again, no jaxrewrite cache, the sources as installed."""
        _set_writable(self.package, True)
        for path in self.package.rglob("*.pyc"):
            if ".opt-jaxrewrite" in path.name:
                path.unlink()
        for path, text in self.originals.items():
            path.write_bytes(text)


@pytest.fixture(scope="module")
def install() -> Iterator[Install]:
    base = _world_readable_tmp()
    try:
        python, reuse = _base_python()
        venv = base / "venv"
        # No pip in the venv (ensurepip costs seconds): this interpreter's pip installs into it.
        vpython = str(child_venv(venv, python=python, reuse=reuse, env=dict(os.environ)))
        pip_env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        pip_env.pop("PYTHONPATH", None)
        pip = [sys.executable, "-m", "pip", "--python", vpython, "install", "-q"]
        site_packages = (
            venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
        )
        pip_installed_jax = False
        if not reuse and not _link_installed(["jax", "jaxlib"], site_packages, vpython):
            pip_installed_jax = True
            jax_pins = [
                f"jax=={importlib.metadata.version('jax')}",
                f"jaxlib=={importlib.metadata.version('jaxlib')}",
            ]
            # --no-compile: pip would byte-compile all of jax, jaxlib, numpy and scipy (most of
            # the fixture's time); one import below writes the pycs of what the probes import.
            _checked(_run([*pip, "--no-compile", *jax_pins], cwd=base, env=pip_env))
        wheels = base / "wheels"
        jr_src = _copy_sources(
            ROOT,
            base / "src" / "jaxrewrite",
            ["jaxrewrite", "setup.cfg", "pyproject.toml", "README.md", "LICENSE"],
        )
        lib_src = _copy_sources(EXAMPLE, base / "src" / "thelib", ["pyproject.toml", "src"])
        for src in (jr_src, lib_src):
            # Without build isolation: the installed setuptools and wheel build it, with no download
            # of a fresh setuptools per wheel (tests/meta/test_packaging.py builds isolated, as a
            # release).
            _checked(
                _run(
                    [
                        sys.executable,
                        "-m",
                        "pip",
                        "wheel",
                        "-q",
                        "--no-deps",
                        "--no-build-isolation",
                        "-w",
                        str(wheels),
                        str(src),
                    ],
                    cwd=base,
                    env=pip_env,
                )
            )
        built = sorted(str(p) for p in wheels.glob("*.whl"))
        assert [Path(p).name.split("-")[0] for p in built] == ["jaxrewrite", "thelib"], built
        _checked(_run([*pip, *built], cwd=base, env=pip_env))
        env = {
            "PATH": f"{venv / 'bin'}:/usr/bin:/bin",
            "HOME": str(base),
            "JAX_PLATFORMS": "cpu",
            "LC_ALL": "C.UTF-8",
        }
        elsewhere = base / "elsewhere"
        elsewhere.mkdir()
        if (
            pip_installed_jax
        ):  # jax's pycs, written where the unprivileged user cannot (not thelib's caches)
            _checked(_run([vpython, "-c", "import jax.numpy"], cwd=elsewhere, env=env))
        where = json.loads(
            _checked(
                _run(
                    [
                        vpython,
                        "-c",
                        "import json, importlib.util as u; "
                        "print(json.dumps([u.find_spec(n).origin for n in ('thelib', "
                        "'jaxrewrite')]))",
                    ],
                    cwd=elsewhere,
                    env=env,
                )
            ).stdout
        )
        package = Path(where[0]).parent
        originals = {path: path.read_bytes() for path in package.rglob("*.py")}
        originals[Path(where[1]).parent / "version.py"] = (
            Path(where[1]).parent / "version.py"
        ).read_bytes()
        yield Install(
            base=base,
            python=vpython,
            jaxrewrite_script=str(venv / "bin" / "jaxrewrite"),
            package=package,
            installed_jaxrewrite=Path(where[1]).parent,
            unprivileged=_unprivileged_can_run(vpython, "import jax, thelib"),
            env=env,
            elsewhere=elsewhere,
            originals=originals,
        )
    finally:
        for folder in base.glob("venv/lib/python*/site-packages/thelib"):
            _set_writable(folder, True)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def lib(install: Install) -> Iterator[Install]:
    install.reset()
    yield install
    install.reset()


def _unprivileged(lib: Install) -> Install:
    if not lib.unprivileged:
        pytest.skip("no Python here that an unprivileged user can run (or no setpriv)")
    return lib


def test_the_installed_wheel_rewrites_its_submodules_from_another_directory(lib: Install) -> None:
    out = lib.probe()
    assert {key: out[key] for key in EXPECTED} == EXPECTED
    base = str(lib.base)
    assert str(out["thelib"]).startswith(base) and "site-packages" in str(
        out["thelib"]
    )  # not editable
    assert str(out["jaxrewrite"]).startswith(base)  # the wheel's jaxrewrite, not this checkout
    assert out["engine"] is True  # no cache yet: rewritten, and the cache written
    assert sorted(name.split(".")[0] for name in lib.caches()) == ["dense", "ops"]
    assert lib.probe()["engine"] is False  # the second import reads the cache the first one wrote


def test_read_only_without_compile_rewrites_at_every_import(lib: Install) -> None:
    """Today's cost, and the control for the next test: the unprivileged user cannot write the
    cache, so every import runs the rewrite again (and still works)."""
    _unprivileged(lib)
    _set_writable(lib.package, False)
    for _ in range(2):
        out = lib.probe(as_user=True)
        assert {key: out[key] for key in EXPECTED} == EXPECTED
        assert out["engine"] is True
    assert lib.caches() == []


def test_compile_then_read_only_import_runs_no_rewrite(lib: Install) -> None:
    _unprivileged(lib)
    done = _checked(
        _run([lib.jaxrewrite_script, "compile", "-m", "thelib"], cwd=lib.elsewhere, env=lib.env)
    )
    report = sorted(
        line.split()[0] + " " + Path(line.split()[1].rstrip(":")).name
        for line in done.stdout.splitlines()[:-1]
    )
    assert report == [
        "skipped __init__.py",
        "skipped __init__.py",
        "skipped plain.py",
        "wrote dense.py",
        "wrote ops.py",
    ], done.stdout
    assert done.stdout.splitlines()[-1] == "jaxrewrite compile: 2 written, 3 skipped, 0 failed"
    _set_writable(lib.package, False)
    out = lib.probe(as_user=True)
    assert {key: out[key] for key in EXPECTED} == EXPECTED  # the same results...
    assert (
        out["engine"] is False
    )  # ...and no rewrite ran: both modules came from the prebuilt cache
    # Only the level compiled for is served: under -O the import rewrites again (still working).
    assert lib.probe("-O", as_user=True)["engine"] is True
    _set_writable(lib.package, True)
    _checked(
        _run(
            [lib.python, "-m", "jaxrewrite", "compile", "-q", "-O", "0,1,2", "-m", "thelib"],
            cwd=lib.elsewhere,
            env=lib.env,
        )
    )
    _set_writable(lib.package, False)
    for flags in ((), ("-O",), ("-OO",)):
        out = lib.probe(*flags, as_user=True)
        assert out["engine"] is False and out["results"] == EXPECTED["results"], flags


def test_stale_or_foreign_caches_are_never_used(lib: Install) -> None:
    """Prebuilt with ``--invalidation-mode checked-hash`` (issue 51 item 4: the user's choice):
    the source's bytes decide, whatever its mtime."""
    _unprivileged(lib)
    compile_hashed = [
        lib.python,
        "-m",
        "jaxrewrite",
        "compile",
        "-q",
        "--invalidation-mode",
        "checked-hash",
        "-m",
        "thelib",
    ]
    _checked(_run(compile_hashed, cwd=lib.elsewhere, env=lib.env))
    ops = lib.package / "ops.py"
    ops.write_text(
        ops.read_text().replace('TRACES.append(("power_sum", n))', 'TRACES.append(("edited", n))')
    )
    written = lib.caches()
    _set_writable(lib.package, False)
    out = lib.probe(as_user=True)
    assert out["engine"] is True  # the edited source is rewritten fresh, not served the old code
    assert out["traces"][0] == ["edited", 3] and out["results"] == EXPECTED["results"]
    assert lib.caches() == written  # uncached: the user could not write, and nothing failed
    _set_writable(lib.package, True)
    ops.write_bytes(lib.originals[ops])
    _set_writable(lib.package, False)
    assert (
        lib.probe(as_user=True)["engine"] is False
    )  # the prebuilt cache matches these bytes again
    # A cache written by another jaxrewrite (here: another version string) is never read.
    version = lib.installed_jaxrewrite / "version.py"
    version.write_text(version.read_text() + '__version__ = __version__ + "+other"\n')
    try:
        out = lib.probe(as_user=True)
        assert out["engine"] is True and out["results"] == EXPECTED["results"]
    finally:
        version.write_bytes(lib.originals[version])
