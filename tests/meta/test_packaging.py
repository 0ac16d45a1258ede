"""The release artefacts: ``python -m build`` makes an sdist and, from it, a wheel; ``twine check
--strict`` accepts both; the sdist carries the license, changelog, README and docs; the wheel's
metadata names the license. Then the wheel is installed (not editable) into a fresh venv and the
seed example runs through it from a folder outside the checkout, printing what the README says.

The venv reuses the packages this interpreter sees (``support.child_venv``) for jax, so the test
needs no index for it; jaxrewrite itself comes from the wheel only (``--ignore-installed``, and the
test asserts where it was imported from). ``tests/hook/test_library.py`` installs a wheel too, as
the dependency of a sample library; this file checks the distribution itself.
"""

from __future__ import annotations

import ast
import email.parser
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from docs_support import README, build_cases
from support import REPO, can_build_without_isolation, child_venv

from jaxrewrite.hook import cachetag

TIMEOUT = 600


def _run(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 0, (
        f"{argv}\n--- stdout ---\n{done.stdout[-4000:]}\n--- stderr ---\n{done.stderr[-4000:]}"
    )
    return done


def _clean_env(**extra: str) -> dict[str, str]:
    """No PYTHONPATH: nothing may reach this checkout but the installed artefacts."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONSAFEPATH", "PYTHONHOME")
    }
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env


def _source_copy(dst: Path) -> Path:
    """What a clean clone holds (tracked files, and new ones git does not ignore), so no build/,
    *.egg-info or site/ of this checkout leaks into the artefacts."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        timeout=60,
        check=False,
    )
    if listed.returncode != 0:  # not a git checkout (an unpacked sdist): copy, less build output
        shutil.copytree(
            REPO,
            dst,
            ignore=shutil.ignore_patterns(
                "__pycache__", "*.egg-info", "build", "dist", "site", ".*"
            ),
        )
        return dst
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = REPO / name
        if source.is_file():  # a deleted but still tracked file is not
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dst / name)
    return dst


@dataclass
class Built:
    sdist: Path
    wheel: Path
    venv_python: Path
    venv: Path
    elsewhere: Path  # a folder outside the checkout, holding only the seed example


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    for module in ("build", "twine"):
        pytest.importorskip(
            module, reason=f"{module} is in the test extra: pip install -e '.[test]'"
        )
    base = tmp_path_factory.mktemp("packaging")
    src = _source_copy(base / "src")
    dist = base / "dist"
    isolation = ["--no-isolation"] if can_build_without_isolation() else []
    _run(
        [sys.executable, "-m", "build", *isolation, "--outdir", str(dist), str(src)],
        cwd=base,
        env=_clean_env(),
    )
    sdists, wheels = sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(p.name for p in dist.iterdir())
    venv = base / "venv"
    # No pip in the venv (ensurepip costs seconds): this interpreter's pip installs into it.
    venv_python = child_venv(venv, env=_clean_env())
    # --ignore-installed: this interpreter may have jaxrewrite already (editable); the venv gets the
    # wheel's own copy. --no-deps --no-index: the dependencies come from the shared site-packages.
    pip = [sys.executable, "-m", "pip", "--python", str(venv_python), "install", "-q"]
    _run(
        [*pip, "--no-deps", "--no-index", "--ignore-installed", str(wheels[0])],
        cwd=base,
        env=_clean_env(),
    )
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    shutil.copy2(REPO / "examples" / "hypercube.py", elsewhere / "hypercube.py")
    return Built(sdists[0], wheels[0], venv_python, venv, elsewhere)


def test_twine_check_strict_accepts_both(built: Built) -> None:
    done = _run(
        [sys.executable, "-m", "twine", "check", "--strict", str(built.sdist), str(built.wheel)],
        cwd=built.sdist.parent,
    )
    assert done.stdout.count("PASSED") == 2, done.stdout


def test_the_sdist_carries_license_changelog_readme_and_docs(built: Built) -> None:
    with tarfile.open(built.sdist) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for needed in (
        "LICENSE",
        "CHANGELOG.md",
        "README.md",
        "mkdocs.yml",
        "docs/getting-started.md",
        "docs/errors.md",
        "docs/jax-errors.md",
        "docs/design.md",
        "docs/contributing.md",
        "examples/hypercube.py",
        "jaxrewrite/__init__.py",
    ):
        assert needed in names, f"the sdist lacks {needed}"
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in names)


def test_the_wheels_metadata_names_the_license(built: Built) -> None:
    with zipfile.ZipFile(built.wheel) as wheel:
        names = wheel.namelist()
        (metadata_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = email.parser.Parser().parsestr(wheel.read(metadata_name).decode())
        # Metadata 2.4 (PEP 639, setuptools 77+) says License-Expression; older setuptools License.
        assert metadata.get("License-Expression", metadata.get("License")) == "Apache-2.0", dict(
            metadata
        )
        assert metadata.get_all("License-File") == ["LICENSE"], metadata.get_all("License-File")
        licenses = [n for n in names if n.endswith("/LICENSE") and ".dist-info/" in n]
        assert licenses and "Apache License" in wheel.read(licenses[0]).decode()
    assert metadata["Name"] == "jaxrewrite" and metadata["Requires-Python"] == ">=3.10"
    assert (
        "Project-URL" not in metadata and "Home-page" not in metadata
    )  # none exists yet: no invented URL
    assert {name.split("/")[0] for name in names} == {"jaxrewrite", metadata_name.split("/")[0]}, (
        "the wheel holds only the package"
    )


def test_the_wheel_carries_every_file_of_the_package(built: Built) -> None:
    """Every file the package holds (its modules in every folder, ``py.typed``, the concrete
    table's JSON beside its module), and no other: a module moved to a new folder, or data moved
    without its ``package_data`` line, is missed here rather than at a user's import."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "jaxrewrite"],
        cwd=REPO,
        capture_output=True,
        timeout=60,
        check=False,
    )
    if listed.returncode == 0:
        package = {
            name for name in listed.stdout.decode().split("\0") if name and (REPO / name).is_file()
        }
    else:  # an unpacked sdist
        package = {
            p.relative_to(REPO).as_posix()
            for p in (REPO / "jaxrewrite").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
    with zipfile.ZipFile(built.wheel) as wheel:
        carried = {name for name in wheel.namelist() if name.startswith("jaxrewrite/")}
    assert (
        "jaxrewrite/engine/rulebook/concrete_params.json" in package
        and "jaxrewrite/py.typed" in package
    )
    # The build writes no file of its own: the cache tag's digests are a line it adds (the test
    # below).
    assert sorted(package - carried) == [] and sorted(carried - package) == []


def test_the_installed_wheel_runs_the_seed_example_as_the_readme_says(built: Built) -> None:
    env = _clean_env(XLA_FLAGS="--xla_force_host_platform_device_count=4", JAX_PLATFORMS="cpu")
    where = _run(
        [str(built.venv_python), "-c", "import jaxrewrite; print(jaxrewrite.__file__)"],
        cwd=built.elsewhere,
        env=env,
    ).stdout.strip()
    installed = Path(where).resolve()
    assert installed.is_relative_to(built.venv.resolve()) and "site-packages" in installed.parts, (
        installed
    )
    assert not installed.is_relative_to(REPO.resolve()), installed
    (example,) = [case for case in build_cases(README) if case.mode == "example"]
    done = _run(
        [str(built.venv_python), "-m", "jaxrewrite", "hypercube.py"], cwd=built.elsewhere, env=env
    )
    assert done.stdout.strip().splitlines() == (example.expect_stdout or "").strip().splitlines()
    # The console script the wheel installs, on the same file.
    checked = subprocess.run(
        [str(built.venv / "bin" / "jaxrewrite"), "check", "hypercube.py"],
        cwd=built.elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert checked.returncode == 0 and "All checks passed!" in checked.stdout, (
        checked.stdout + checked.stderr
    )


def test_the_venv_imports_each_dependency_from_where_this_interpreter_does(built: Built) -> None:
    """The wheel's dependencies come from this interpreter's environment, whatever it is: run from
    a venv, ``--system-site-packages`` alone would reach the base interpreter's packages (where
    astor may be missing, as in a fresh user's venv), not the venv's (``support.child_venv``)."""
    env = _clean_env(JAX_PLATFORMS="cpu")
    names = ["astor", "typing_extensions", "jax", "jaxlib"]
    probe = (
        "import importlib.util, sys; print('\\n'.join(str(importlib.util.find_spec(n).origin) "
        "for n in sys.argv[1:]))"
    )
    seen = _run(
        [str(built.venv_python), "-c", probe, *names], cwd=built.elsewhere, env=env
    ).stdout.split()
    ours = [str(importlib.util.find_spec(name).origin) for name in names]  # type: ignore[union-attr]
    assert [os.path.realpath(p) for p in seen] == [os.path.realpath(p) for p in ours], (
        sys.prefix,
        sys.base_prefix,
    )


#: A user of the installed wheel: an opted-in module imported through the hook, with every stat
#: of jaxrewrite's own files counted (the cache tag's check, in a checkout).
TAG_PROBE = """\
import json, os, sys
package = os.path.dirname(__import__("jaxrewrite").__file__)
statted = []
real_stat = os.stat
def counting_stat(path, *args, **kwargs):
    if str(path).startswith(package):
        statted.append(str(path))
    return real_stat(path, *args, **kwargs)
os.stat = counting_stat
import jaxrewrite
from jaxrewrite.hook import cachetag
jaxrewrite.install()
import opted
print(json.dumps({
    "result": int(opted.power(3, 2)), "built": cachetag.built(getattr(__import__("jaxrewrite.hook").hook, "BUILT", None),
    __import__("jaxrewrite").__version__) is not None, "tag": cachetag.rewriter_hash(), "statted": statted,
    "engine": "jaxrewrite.engine.rewrite" in sys.modules, "loader": type(opted.__loader__).__name__,
}))
"""  # noqa: E501

OPTED = """\
# jaxrewrite: enable
import jax
from jaxrewrite import Static


@jax.jit
def power(x, n: Static[int]):
    for _ in range(n - 1):
        x = x * x
    return x
"""


def test_the_wheel_carries_its_digest_so_an_install_hashes_none_of_its_sources(
    built: Built, tmp_path: Path
) -> None:
    """The build writes the rewriter's digest into the wheel (setup.py, hook/cachetag.py): it is the
    digest of the files installed, and of this checkout's; an installed jaxrewrite takes it and
    stats none of its own files on an import, cold or warm; a warm import runs the cached
    rewrite without the engine."""
    with zipfile.ZipFile(built.wheel) as wheel:
        carrier = wheel.read("jaxrewrite/hook/__init__.py").decode()
    version, rewriter = _built_line(carrier)
    # The line is all the build adds: the rest of the file is the checkout's, byte for byte.
    assert (
        carrier.splitlines()[:-2]
        == (REPO / "jaxrewrite" / "hook" / "__init__.py").read_text().splitlines()
    )
    assert version == __import__("jaxrewrite").__version__
    assert rewriter == cachetag.of_tree(str(REPO / "jaxrewrite"), version)
    where = tmp_path / "user"
    where.mkdir()
    (where / "opted.py").write_text(OPTED)
    env = _clean_env(JAX_PLATFORMS="cpu")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    runs = [
        json.loads(_run([str(built.venv_python), "-c", TAG_PROBE], cwd=where, env=env).stdout)
        for _ in range(2)
    ]
    for run in runs:
        assert (
            run["result"] == 9
            and run["built"] is True
            and run["tag"] == rewriter
            and run["loader"] == "RewritingLoader"
        )
        assert run["statted"] == [], run["statted"]
    assert [run["engine"] for run in runs] == [True, False]  # cold: rewritten; warm: from the cache
    installed = Path(
        _run(
            [str(built.venv_python), "-c", "import jaxrewrite; print(jaxrewrite.__file__)"],
            cwd=where,
            env=env,
        ).stdout.strip()
    ).parent
    assert cachetag.of_tree(str(installed), version) == rewriter


def test_a_checkout_has_no_built_digest_and_hashes_its_sources() -> None:
    """An editable install or a checkout is edited in place: no digest is built into it, so its
    tag comes from hashing its sources (once per process), never from a file."""
    from jaxrewrite import hook

    assert (
        not hasattr(hook, cachetag.BUILT)
        and cachetag.BUILT not in (REPO / "jaxrewrite" / "hook" / "__init__.py").read_text()
    )
    assert cachetag.rewriter_hash() == cachetag.of_tree(
        str(REPO / "jaxrewrite"), __import__("jaxrewrite").__version__
    )


def test_only_a_builds_shape_of_this_version_is_taken() -> None:
    """What the package carries is taken only as a build writes it, for this version."""
    version = __import__("jaxrewrite").__version__
    good = (version, "0123456789abcdef")
    assert cachetag.built(good, version) == good[1]
    for bad in [
        None,
        list(good),
        ("0.0.0", good[1]),
        (version, "0123456789abcdeg"),
        (version,),
        (version, good[1], "x"),
        (version, 7),
    ]:
        assert cachetag.built(bad, version) is None, bad


def test_a_rebuild_of_the_same_folder_replaces_the_digests_it_wrote(tmp_path: Path) -> None:
    """setuptools copies a source into build/ only when it is newer: a second build of the same
    folder finds its own line in the carrier, and replaces it rather than adding another."""
    package = tmp_path / "jaxrewrite"
    shutil.copytree(REPO / "jaxrewrite", package, ignore=shutil.ignore_patterns("__pycache__"))
    version = __import__("jaxrewrite").__version__
    carrier = Path(cachetag.bake(str(package), version))
    first = carrier.read_text()
    (package / "engine" / "build.py").write_text(
        (package / "engine" / "build.py").read_text() + "\n# edited\n"
    )
    cachetag.bake(str(package), version)
    second = carrier.read_text()
    assert (
        second.count(f"{cachetag.BUILT} = ") == 1
        and second.splitlines()[:-1] == first.splitlines()[:-1]
    )
    assert (
        _built_line(second)
        == (version, cachetag.of_tree(str(package), version))
        != _built_line(first)
    )


def _built_line(carrier: str) -> tuple[str, str]:
    """The digest the build wrote into ``hook/__init__.py``: its one ``BUILT = (...)`` line."""
    (line,) = [line for line in carrier.splitlines() if line.startswith(f"{cachetag.BUILT} = ")]
    value = ast.literal_eval(line.partition(" = ")[2])
    assert type(value) is tuple and len(value) == 2
    return value
